import { z } from "@hono/zod-openapi";
import { defineRoute } from "../define.ts";
import { SuccessSchema } from "../schemas.ts";
import { NOT_MEMBER, orgOf, type Register, required } from "./route-helpers.ts";
import {
  FullOrganizationSchema,
  Id,
  MembershipSchema,
  Metadata,
  OrganizationIdField,
  OrganizationSchema,
  TAG,
} from "./schemas.ts";

export const registerOrganizationCrud: Register = (app, tools, service) => {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/create",
      rateLimit: { window: "1m", max: 10 },
      operationId: "createOrganization",
      tag: TAG,
      authenticated: true,
      summary: "Create an organization",
      description:
        "Creates an organization with the caller as its `owner` and makes it the session's active organization (unless `keepCurrentActiveOrganization`). The slug is unique (409 `ORGANIZATION_SLUG_TAKEN`). `allowUserToCreate` may refuse (403 `ORGANIZATION_CREATION_DISABLED`), and so may the `beforeOrganizationCreated` and `beforeMemberAdded` hooks (403). Emits `OrganizationCreated` and `MemberAdded`.",
      body: z.object({
        name: z.string().max(128),
        slug: z.string().max(64).openapi({ description: "Lower-case letters, digits and dashes; unique." }),
        logo: z.string().max(2048).nullable().optional(),
        metadata: Metadata.optional(),
        keepCurrentActiveOrganization: z.boolean().optional(),
      }),
      response: { schema: OrganizationSchema, description: "The new organization" },
      errors: [403, 409],
    },
    async (c, { body, session }) => {
      const { keepCurrentActiveOrganization, ...input } = body;
      const meta = tools.meta(c);
      const created = await service.create(session.userRecord, input, meta, { checkAllowed: true });
      if (keepCurrentActiveOrganization !== true)
        await service.setActive(session.userRecord, session.session.id, { organizationId: created.id }, meta);
      return c.json(created);
    },
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/update",
      rateLimit: { window: "1m", max: 30 },
      operationId: "updateOrganization",
      tag: TAG,
      authenticated: true,
      summary: "Update an organization",
      description: `Changes the name, slug, logo or metadata given in \`data\`. ${required(service, "organization:update")} ${NOT_MEMBER} Emits \`OrganizationUpdated\`.`,
      body: z.object({
        organizationId: OrganizationIdField,
        data: z.object({
          name: z.string().max(128).optional(),
          slug: z.string().max(64).optional(),
          logo: z.string().max(2048).nullable().optional(),
          metadata: Metadata.optional(),
        }),
      }),
      response: { schema: OrganizationSchema, description: "The organization as updated" },
      errors: [403, 404, 409],
    },
    async (c, { body, session }) =>
      c.json(
        await service.update(
          session.userRecord,
          { organizationId: orgOf(body.organizationId, session), data: body.data },
          tools.meta(c),
        ),
      ),
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/delete",
      rateLimit: { window: "1m", max: 10 },
      operationId: "deleteOrganization",
      tag: TAG,
      authenticated: true,
      fresh: true,
      summary: "Delete an organization",
      description: `Deletes the organization with its members and invitations, and clears it as every session's active organization. ${required(service, "organization:delete")} ${NOT_MEMBER} Emits \`OrganizationDeleted\`.`,
      body: z.object({ organizationId: Id }),
      response: { schema: SuccessSchema, description: "Deleted" },
      errors: [403, 404],
    },
    async (c, { body, session }) =>
      c.json(await service.delete(session.userRecord, body.organizationId, tools.meta(c))),
  );
};

export const registerOrganizationReads: Register = (app, tools, service) => {
  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/organization/list",
      operationId: "listOrganizations",
      tag: TAG,
      authenticated: true,
      globalRateLimit: false,
      summary: "The caller's organizations",
      description: "Every organization the caller is a member of, with their role in it, oldest membership first.",
      response: { schema: z.array(MembershipSchema).openapi("OrganizationList"), description: "The organizations" },
    },
    async (c, { session }) => c.json(await service.list(session.userRecord.id)),
  );
  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/organization/get-full-organization",
      operationId: "getFullOrganization",
      tag: TAG,
      authenticated: true,
      globalRateLimit: false,
      summary: "An organization with its members and pending invitations",
      description: `By \`organizationId\` or \`organizationSlug\`, else the session's active organization. Any member may read it. ${NOT_MEMBER}`,
      query: z.object({ organizationId: Id.optional(), organizationSlug: z.string().max(64).optional() }),
      response: { schema: FullOrganizationSchema, description: "The organization" },
      errors: [404],
    },
    async (c, { query, session }) => {
      const ref = query.organizationSlug
        ? { organizationSlug: query.organizationSlug }
        : { organizationId: orgOf(query.organizationId, session) };
      return c.json(await service.getFull(session.userRecord.id, ref));
    },
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/set-active",
      rateLimit: { window: "1m", max: 60 },
      operationId: "setActiveOrganization",
      tag: TAG,
      authenticated: true,
      summary: "Set the session's active organization",
      description: `Stores the organization on the session (\`session.activeOrganizationId\`; \`/token\` JWTs then carry \`org_id\` and \`org_role\`); \`organizationId: null\` clears it. Only a member can make an organization active; the membership is checked in the same write. ${NOT_MEMBER} Emits \`ActiveOrganizationChanged\`.`,
      body: z.object({
        organizationId: Id.nullable().optional(),
        organizationSlug: z.string().max(64).optional(),
      }),
      response: {
        schema: OrganizationSchema.nullable().openapi("ActiveOrganization"),
        description: "The active organization, or null",
      },
      errors: [404],
    },
    async (c, { body, session }) => {
      const ref =
        body.organizationSlug !== undefined
          ? { organizationSlug: body.organizationSlug }
          : typeof body.organizationId === "string"
            ? { organizationId: body.organizationId }
            : null;
      return c.json(await service.setActive(session.userRecord, session.session.id, ref, tools.meta(c)));
    },
  );
};
