import { z } from "@hono/zod-openapi";

/** `resource -> actions`; names are checked further in core (1..64 of `A-Z a-z 0-9 _ . : / -`). */
const PermissionsSchema = z
  .record(z.string().min(1).max(64), z.array(z.string().min(1).max(64)).max(64))
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
const NameField = z.string().max(256).nullable().openapi({ example: "CI deploys" });

const ApiKeySchema = z
  .object({
    id: z.string(),
    userId: z.string(),
    name: z.string().nullable(),
    prefix: z.string().openapi({ example: "lk_" }),
    start: z.string().openapi({ example: "lk_8Fq2x", description: "First 8 characters of the key, for display." }),
    enabled: z.boolean(),
    metadata: z.record(z.string(), z.unknown()),
    permissions: PermissionsSchema,
    remaining: z.number().int().nullable().openapi({ description: "Uses left; null = unlimited." }),
    rateLimitMax: z.number().int().nullable(),
    rateLimitWindowMs: z.number().int().nullable(),
    lastUsedAt: z
      .string()
      .nullable()
      .openapi({ format: "date-time", description: "Recorded only for keys with a quota or a rate limit." }),
    expiresAt: z.string().nullable().openapi({ format: "date-time" }),
    createdAt: z.string().openapi({ format: "date-time" }),
    updatedAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("ApiKey");

// Loose objects: server-only fields must reach the handler so they can be refused (400) rather than dropped.
export const CreateBody = z.looseObject({
  name: NameField.optional(),
  prefix: z
    .string()
    .max(16)
    .optional()
    .openapi({ description: "1 to 16 of A-Z a-z 0-9 _ (default `apiKeys({ defaultPrefix })`, `lk_`)." }),
  expiresIn: DurationSchema.nullable().optional(),
  metadata: MetadataSchema.optional(),
  permissions: PermissionsSchema.optional(),
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
    z.object({ valid: z.literal(true), apiKey: ApiKeySchema }),
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
          description: "RATE_LIMITED: ms until the window resets. USAGE_EXCEEDED: null (quotas do not refill).",
        }),
      }),
    }),
  ])
  .openapi("VerifyApiKeyResponse");

export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional().openapi({ description: "1..100, default 20", example: 20 }),
  cursor: z.string().max(512).optional().openapi({ description: "`nextCursor` of the previous page" }),
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
export const ApiKeyResponse = z.object({ apiKey: ApiKeySchema }).openapi("ApiKeyResponse");
export const DeletedResponse = z.object({ deleted: z.number().int() }).openapi("DeletedCount");
