import { AuthError } from "../errors/errors.ts";

export const notFound = () =>
  new AuthError("ORGANIZATION_NOT_FOUND", "No such organization, or you are not a member of it");
export const forbidden = () =>
  new AuthError("INSUFFICIENT_PERMISSIONS", "Your role in this organization does not allow this");

export const limitReached = () =>
  new AuthError("MEMBERSHIP_LIMIT_REACHED", "The organization has as many members as it may have");

export function acceptRefusal(
  reason: "not-found" | "not-pending" | "expired" | "wrong-email" | "exists" | "limit",
): AuthError {
  switch (reason) {
    case "not-found":
      return new AuthError("INVITATION_NOT_FOUND", "No such invitation");
    case "not-pending":
      return new AuthError("INVITATION_NOT_PENDING", "The invitation was answered or canceled already");
    case "expired":
      return new AuthError("INVITATION_EXPIRED", "The invitation expired");
    case "wrong-email":
      return new AuthError("INVITATION_RECIPIENT_MISMATCH", "This invitation was sent to another address");
    case "exists":
      return new AuthError("ALREADY_A_MEMBER", "You are a member of this organization already");
    case "limit":
      return limitReached();
  }
}

export function guardedRefusal(reason: "not-found" | "last-owner"): AuthError {
  return reason === "last-owner"
    ? new AuthError("LAST_OWNER", "The organization's last owner cannot leave, be removed or be demoted")
    : new AuthError("MEMBER_NOT_FOUND", "No such member of this organization");
}
