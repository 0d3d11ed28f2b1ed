import type { InvitationRecord, JsonObject, MemberRecord, OrganizationRecord, UserRecord } from "../ports/records.ts";
import { isoTime } from "../session/iso-time.ts";

/** An organization as the API shows it. */
export interface OrganizationView {
  id: string;
  name: string;
  slug: string;
  logo: string | null;
  metadata: JsonObject;
  createdAt: string;
}

/** A member as the API shows it, with the public part of their user. */
export interface MemberView {
  id: string;
  organizationId: string;
  userId: string;
  role: string;
  createdAt: string;
  user: { id: string; email: string; name: string | null; image: string | null };
}

/** An invitation as the API shows it. */
export interface InvitationView {
  id: string;
  organizationId: string;
  email: string;
  role: string;
  inviterId: string;
  status: InvitationRecord["status"];
  expiresAt: string;
  createdAt: string;
}

/** An organization with its members and pending invitations (`/organization/get-full-organization`). */
export interface FullOrganizationView extends OrganizationView {
  members: MemberView[];
  invitations: InvitationView[];
}

/** One of the user's organizations with their role in it (`/organization/list`). */
export interface MembershipView extends OrganizationView {
  role: string;
}

export function toOrganizationView(o: OrganizationRecord): OrganizationView {
  return { id: o.id, name: o.name, slug: o.slug, logo: o.logo, metadata: o.metadata, createdAt: isoTime(o.createdAt) };
}

export function toMemberView(m: MemberRecord, u: UserRecord): MemberView {
  return {
    id: m.id,
    organizationId: m.organizationId,
    userId: m.userId,
    role: m.role,
    createdAt: isoTime(m.createdAt),
    user: { id: u.id, email: u.email, name: u.name, image: u.image },
  };
}

/** An invitation as the API shows it. */
export function toInvitationView(i: InvitationRecord): InvitationView {
  return {
    id: i.id,
    organizationId: i.organizationId,
    email: i.email,
    role: i.role,
    inviterId: i.inviterId,
    status: i.status,
    expiresAt: isoTime(i.expiresAt),
    createdAt: isoTime(i.createdAt),
  };
}
