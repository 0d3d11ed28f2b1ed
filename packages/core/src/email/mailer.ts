import { describeError } from "../errors/describe.ts";
import type { ResolvedConfig } from "../kernel/config.ts";
import { renderEmail, renderTemplate, type EmailSender, type EmailTemplates } from "./email.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { consoleLogger, type Logger } from "../logger/logger.ts";

/**
 * Renders a named template and hands it to the configured sender.
 *
 * @example
 * await ctx.mailer.send("ada@example.com", "verification", { url, token, email, expiresInMinutes: "1440" });
 */
export class Mailer {
  constructor(
    private readonly config: ResolvedConfig,
    readonly sender: EmailSender,
    private readonly logger: Logger = consoleLogger(),
  ) {}

  /**
   * Renders `<template>.subject/.txt/.html` with `appName` plus `vars` and sends it. `subjectOverride`
   * (e.g. `deleteAccount.subject`) replaces the subject template and may use the same `{{variables}}`.
   * `templates` (a feature's own overrides, e.g. `emailOtp({ templates })`) win over `email.templates`.
   */
  async send(
    to: string,
    template: string,
    vars: Record<string, string>,
    subjectOverride?: string,
    templates?: EmailTemplates,
  ): Promise<void> {
    const all = { appName: this.config.appName, ...vars };
    const sources = templates ? { ...this.config.email.templates, ...templates } : this.config.email.templates;
    const rendered = renderEmail(sources, template, all);
    const subject = subjectOverride === undefined ? rendered.subject : renderTemplate(subjectOverride, all, false);
    await this.sender.send({ to, from: this.config.email.from, template, ...rendered, subject });
  }

  /**
   * Sends without letting delivery time or failure show in the response (anti-enumeration endpoints):
   * handed to `waitUntil` when the runtime has one. Failures are logged without the message body.
   */
  sendInBackground(
    meta: RequestMeta,
    to: string,
    template: string,
    vars: Record<string, string>,
    subjectOverride?: string,
    templates?: EmailTemplates,
  ): void {
    const task = this.send(to, template, vars, subjectOverride, templates).catch((error: unknown) => {
      this.logger.error({ template, error: describeError(error) }, `email "${template}" could not be sent`);
    });
    meta.waitUntil?.(task);
  }
}
