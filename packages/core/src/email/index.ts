export { consoleEmailSender, renderTemplate, renderEmail, DEFAULT_TEMPLATES } from "./email.ts";
export type { EmailMessage, EmailSender, EmailTemplates } from "./email.ts";
