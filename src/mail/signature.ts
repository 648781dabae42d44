// How every message to an integrator ends (verification, resets, plan decisions, webhook notices): one signature,
// in the mail layer so that any module that writes such a message can use it.
export const PORTAL_MAIL_SIGNATURE = '\n\n-- \nPetstore developer portal\n'
