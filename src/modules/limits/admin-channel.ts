// How the CLI reaches the running service's counters and bans (api/admin/admin.routes.ts): the setting that holds
// the shared token in the database, and the header that names the CLI's operating-system user for the audit entry.
export const ADMIN_TOKEN_SETTING = 'admin_token'
/** The CLI names its operating-system user here (URI-encoded), for the audit entry of what it asks for. */
export const CLI_USER_HEADER = 'x-petstore-cli-user'
