// A QR code as SVG markup drawn on the server and put in the page itself (presentation attributes only: nothing the
// CSP refuses): the console's and the portal's authenticator enrolment.
import { createRequire } from 'node:module'
import { Html } from './html.js'

export async function qrSvg(uri: string): Promise<Html> {
  // Loaded when an enrolment page is first shown, not at every start.
  const QRCode = createRequire(import.meta.url)('qrcode') as typeof import('qrcode')
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
  return new Html(
    svg.replace('<svg ', '<svg role="img" aria-label="QR code of the authenticator link" focusable="false" '),
  )
}
