/** An organization's life: its creation (with its first owner), its updates and its deletion. */
import { randomId } from "../crypto/crypto.ts";
import { AuthError, invalidField } from "../errors/errors.ts";
import { emit } from "../kernel/emit.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { MemberRecord, OrganizationRecord, UserRecord } from "../ports/records.ts";
import type { OrganizationPatch } from "../ports/store.ts";
import { toUserView } from "../session/session.ts";
import type { OrganizationDraft } from "./options.ts";
import { OWNER_ROLE } from "./roles.ts";
import { authorized, beforeMemberAdded, clockNow, runHook, type OrganizationDeps } from "./access.ts";
import {
  checkHookValue,
  checkLogo,
  checkMetadata,
  checkName,
  checkSlug,
  type CreateOrganizationInput,
  type UpdateOrganizationInput,
} from "./input.ts";
import { notFound } from "./refusals.ts";
import { toOrganizationView, type OrganizationView } from "./view.ts";

/**
 * Creates an organization with `user` as its owner. `checkAllowed`: the HTTP route asks `allowUserToCreate`;
 * `auth.api.createOrganization` does not.
 */
export async function createOrganization(
  deps: OrganizationDeps,
  user: UserRecord,
  input: CreateOrganizationInput,
  meta: RequestMeta,
  options: { checkAllowed: boolean },
): Promise<OrganizationView> {
  let draft: OrganizationDraft = {
    name: checkName(input.name, "name"),
    slug: checkSlug(input.slug, "slug"),
    logo: input.logo === undefined ? null : checkLogo(input.logo, "logo"),
    metadata: input.metadata === undefined ? {} : checkMetadata(input.metadata, "metadata"),
  };
  if (options.checkAllowed) {
    const allow = deps.options.allowUserToCreate;
    const allowed =
      typeof allow === "boolean" ? allow : await runHook("allowUserToCreate", () => allow(toUserView(user)));
    if (allowed !== true) throw new AuthError("ORGANIZATION_CREATION_DISABLED", "You may not create organizations");
  }
  const hook = deps.options.hooks.beforeOrganizationCreated;
  if (hook) {
    const answer = await runHook("beforeOrganizationCreated", () =>
      hook(structuredClone(draft), { user: toUserView(user) }),
    );
    if (answer === false) throw new AuthError("ORGANIZATION_CREATION_REJECTED", "This organization may not be created");
    if (answer !== null && typeof answer === "object") {
      draft = {
        name: answer.name === undefined ? draft.name : checkHookValue(() => checkName(answer.name, "name")),
        slug: answer.slug === undefined ? draft.slug : checkHookValue(() => checkSlug(answer.slug, "slug")),
        logo: answer.logo === undefined ? draft.logo : checkHookValue(() => checkLogo(answer.logo, "logo")),
        metadata:
          answer.metadata === undefined
            ? draft.metadata
            : checkHookValue(() => checkMetadata(answer.metadata, "metadata")),
      };
    }
  }
  const at = clockNow(deps);
  const organization: OrganizationRecord = { id: randomId(deps.ctx.random), ...draft, createdAt: at };
  const owner: MemberRecord = {
    id: randomId(deps.ctx.random),
    organizationId: organization.id,
    userId: user.id,
    role: OWNER_ROLE,
    createdAt: at,
  };
  await beforeMemberAdded(deps, owner, "create-organization", user);
  const result = await deps.store.create(organization, owner);
  if (result === "slug-taken")
    throw new AuthError("ORGANIZATION_SLUG_TAKEN", "Another organization has this slug", {
      details: [{ path: "slug", message: "taken" }],
    });
  if (result === "owner-gone") throw new AuthError("SESSION_NOT_FOUND", "The account no longer exists");
  await emit(
    deps.ctx,
    "OrganizationCreated",
    { userId: user.id, organizationId: organization.id, slug: organization.slug },
    meta,
    at,
  );
  await emit(
    deps.ctx,
    "MemberAdded",
    { userId: user.id, organizationId: organization.id, memberUserId: user.id, role: OWNER_ROLE, via: "create" },
    meta,
    at,
  );
  return toOrganizationView(organization);
}

export async function updateOrganization(
  deps: OrganizationDeps,
  user: UserRecord,
  input: UpdateOrganizationInput,
  meta: RequestMeta,
): Promise<OrganizationView> {
  const data = input.data;
  if (data === null || typeof data !== "object") throw invalidField("data", "data must be an object");
  const patch: OrganizationPatch = {};
  if (data.name !== undefined) patch.name = checkName(data.name, "data.name");
  if (data.slug !== undefined) patch.slug = checkSlug(data.slug, "data.slug");
  if (data.logo !== undefined) patch.logo = checkLogo(data.logo, "data.logo");
  if (data.metadata !== undefined) patch.metadata = checkMetadata(data.metadata, "data.metadata");
  const { organization } = await authorized(
    deps,
    user.id,
    { organizationId: input.organizationId },
    { organization: ["update"] },
  );
  const fields = Object.keys(patch);
  if (fields.length === 0) return toOrganizationView(organization);
  const updated = await deps.store.update(organization.id, patch);
  if (updated === null) throw notFound();
  if (updated === "slug-taken")
    throw new AuthError("ORGANIZATION_SLUG_TAKEN", "Another organization has this slug", {
      details: [{ path: "data.slug", message: "taken" }],
    });
  await emit(deps.ctx, "OrganizationUpdated", { userId: user.id, organizationId: organization.id, fields }, meta);
  return toOrganizationView(updated);
}

/** Deletes the organization with its members and invitations (`organization: ["delete"]`: owners by default). */
export async function deleteOrganization(
  deps: OrganizationDeps,
  user: UserRecord,
  organizationId: string,
  meta: RequestMeta,
): Promise<{ success: true }> {
  const { organization } = await authorized(deps, user.id, { organizationId }, { organization: ["delete"] });
  if (!(await deps.store.delete(organization.id))) throw notFound();
  await emit(deps.ctx, "OrganizationDeleted", { userId: user.id, organizationId: organization.id }, meta);
  return { success: true };
}
