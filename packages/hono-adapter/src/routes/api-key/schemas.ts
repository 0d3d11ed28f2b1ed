import { z } from "@hono/zod-openapi";
import { API_KEY_LIMITS } from "@latchkey/core/internal";

/** `resource -> actions`; names are checked further in core (1..64 of `A-Z a-z 0-9 _ . : / -`). */
const PermissionsSchema = z
  .record(
    z.string().min(1).max(API_KEY_LIMITS.permissionName),
    z.array(z.string().min(1).max(API_KEY_LIMITS.permissionName)).max(API_KEY_LIMITS.permissionActions),
  )
  .openapi("ApiKeyPermissions", {
    example: { files: ["read", "write"] },
    description:
      "Resource to actions. A check passes when every requested action of every requested resource is present.",
  });

const MetadataSchema = z.record(z.string(), z.unknown()).openapi({ example: { team: "billing" } });
const DurationSchema = z
  .union([z.number().positive(), z.string().max(32)])
  .openapi({ description: 'Seconds, or a compact duration such as "30d", "12h".', example: "30d" });
const KeyIdField = z.string().min(1).max(128).openapi({ description: "The key's `id` (from create or list)." });
const NameField = z.string().max(API_KEY_LIMITS.name).nullable().openapi({ example: "CI deploys" });

const ApiKeySchema = z
  .object({
    id: z.string(),
    userId: z.string(),
    name: z.string().nullable(),
    prefix: z.string().openapi({ example: "lk_" }),
    start: z.string().openapi({ example: "lk_8Fq2x", description: "First 8 characters of the key, for display." }),
    enabled: z.boolean(),
    locked: z.boolean().openapi({
      description:
        "Disabled by the service operator (`auth.api.updateApiKey({ enabled: false })`): the owner cannot enable it (403 `KEY_LOCKED`).",
    }),
    metadata: z.record(z.string(), z.unknown()).openapi({ description: "The owner's data (writable by the owner)." }),
    serverMetadata: z
      .record(z.string(), z.unknown())
      .openapi({ description: "Data only the server writes (`auth.api`); read-only to the owner." }),
    permissions: PermissionsSchema,
    remaining: z.number().int().nullable().openapi({ description: "Uses left; null = unlimited." }),
    refillAmount: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "`remaining` is set back to this every `refillInterval`; null = no refill." }),
    refillInterval: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Milliseconds between refills; null = no refill." }),
    lastRefillAt: z
      .string()
      .nullable()
      .openapi({ format: "date-time", description: "Last refill (creation until the first); null without a refill." }),
    rateLimitMax: z.number().int().nullable(),
    rateLimitWindowMs: z.number().int().nullable(),
    lastUsedAt: z.string().nullable().openapi({
      format: "date-time",
      description:
        "Last successful use. Keys without a quota or rate limit record it at most once per `apiKeys({ lastUsedResolution })` (default one minute).",
    }),
    rerolledAt: z
      .string()
      .nullable()
      .openapi({ format: "date-time", description: "When the key's value was last replaced; null when never." }),
    expiresAt: z.string().nullable().openapi({ format: "date-time" }),
    createdAt: z.string().openapi({ format: "date-time" }),
    updatedAt: z.string().openapi({ format: "date-time" }),
    organizationId: z.string().nullable().openapi({
      description:
        "The organization the key acts for (`organizations()`); null for a user's own key. A verify answers its `permissions` capped by the creator's current role in it (none once they left it).",
    }),
  })
  .openapi("ApiKey");

// Loose objects: server-only fields must reach the handler so they can be refused (400 SERVER_ONLY_PROPERTY), and
// any other field the route does not apply too (400 INVALID_REQUEST naming it), rather than dropped.
export const CreateBody = z.looseObject({
  name: NameField.optional(),
  prefix: z
    .string()
    .max(API_KEY_LIMITS.prefix)
    .optional()
    .openapi({ description: "1 to 16 of A-Z a-z 0-9 _ (default `apiKeys({ defaultPrefix })`, `lk_`)." }),
  expiresIn: DurationSchema.nullable().optional(),
  metadata: MetadataSchema.optional(),
  permissions: PermissionsSchema.optional(),
  enabled: z
    .boolean()
    .optional()
    .openapi({ description: "`false` creates the key disabled (the owner may enable it later). Default true." }),
  organizationId: z.string().max(64).nullable().optional().openapi({
    description:
      "`organizations()`: an organization the caller is a member of, whose role there grants `apiKey: [\"create\"]` (403 `INSUFFICIENT_PERMISSIONS`; 404 `ORGANIZATION_NOT_FOUND` for a non-member). The key's `permissions` must then be within that role's statements (not `grantablePermissions`).",
  }),
});

export const CreateResponse = z
  .object({
    apiKey: ApiKeySchema,
    key: z.string().openapi({
      description: "The plaintext key. Shown this once; only its SHA-256 is stored.",
      example: "lk_8Fq2x...",
    }),
  })
  .openapi("CreateApiKeyResponse");

export const VerifyBody = z.object({
  key: z
    .string()
    .optional()
    .openapi({ description: "The key; when absent, the configured header (`x-api-key`) is read." }),
  permissions: PermissionsSchema.optional(),
});

export const VerifyResponse = z
  .union([
    z.object({
      valid: z.literal(true),
      apiKey: ApiKeySchema.omit({ serverMetadata: true }).openapi("VerifiedApiKey", {
        description: "The key, without `serverMetadata` (operator data, shown only to trusted code).",
      }),
      deprecated: z.boolean().openapi({
        description:
          "True when the value verified is one a reroll replaced, still inside its grace period: the caller should switch to the new value.",
      }),
    }),
    z.object({
      valid: z.literal(false),
      error: z.object({
        code: z.enum([
          "INVALID_API_KEY",
          "KEY_DISABLED",
          "KEY_EXPIRED",
          "USAGE_EXCEEDED",
          "RATE_LIMITED",
          "INSUFFICIENT_PERMISSIONS",
        ]),
        message: z.string(),
        tryAgainIn: z.number().int().nullable().optional().openapi({
          description:
            "RATE_LIMITED: ms until the window resets. USAGE_EXCEEDED: ms until the next refill, or null for a key without a refill.",
        }),
      }),
    }),
  ])
  .openapi("VerifyApiKeyResponse");

export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional().openapi({ description: "1..100, default 20", example: 20 }),
  cursor: z.string().max(512).optional().openapi({ description: "`nextCursor` of the previous page" }),
  organizationId: z.string().max(64).optional().openapi({
    description:
      "`organizations()`: list this organization's keys (whoever created them) instead of the caller's; needs a role granting `apiKey: [\"read\"]`.",
  }),
});

export const ListResponse = z
  .object({ apiKeys: z.array(ApiKeySchema), nextCursor: z.string().nullable() })
  .openapi("ApiKeyList");

export const UpdateBody = z.looseObject({
  keyId: KeyIdField,
  name: NameField.optional(),
  enabled: z.boolean().optional(),
  metadata: MetadataSchema.optional(),
  permissions: PermissionsSchema.optional(),
});

export const DeleteBody = z.object({ keyId: KeyIdField });

export const RerollBody = z.object({
  keyId: KeyIdField,
  gracePeriod: z
    .union([z.number().nonnegative(), z.string().max(32)])
    .optional()
    .openapi({
      description:
        'How long the previous value keeps verifying: seconds or a compact duration ("1h", "7d"); default 0 (it stops at once); at most `apiKeys({ maxRerollGrace })` (default 7 days).',
      example: "1h",
    }),
});

export const UsageQuery = z.object({
  keyId: KeyIdField,
  days: z.coerce.number().int().min(1).max(366).optional().openapi({
    description: "How many UTC days back, today included (default 30, at most the retention).",
    example: 14,
  }),
});

const RefusalCounts = z
  .object({
    INVALID_API_KEY: z.number().int(),
    KEY_DISABLED: z.number().int(),
    KEY_EXPIRED: z.number().int(),
    USAGE_EXCEEDED: z.number().int(),
    RATE_LIMITED: z.number().int(),
    INSUFFICIENT_PERMISSIONS: z.number().int(),
  })
  .partial()
  .openapi({ description: "Refused verifies by code; codes with none are left out.", example: { RATE_LIMITED: 3 } });

export const UsageResponse = z
  .object({
    days: z.array(
      z.object({
        date: z.string().openapi({ example: "2026-06-01", description: "UTC day, YYYY-MM-DD." }),
        valid: z.number().int().openapi({ description: "Valid verifies that day." }),
        refused: RefusalCounts,
      }),
    ),
  })
  .openapi("ApiKeyUsage");
export const ApiKeyResponse = z.object({ apiKey: ApiKeySchema }).openapi("ApiKeyResponse");
export const DeletedResponse = z.object({ deleted: z.number().int() }).openapi("DeletedCount");
