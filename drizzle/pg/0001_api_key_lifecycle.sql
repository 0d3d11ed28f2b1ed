ALTER TABLE "api_keys" ADD COLUMN "locked" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "server_metadata" json DEFAULT '{}'::json NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "refill_amount" integer;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "refill_interval_ms" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "last_refill_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "previous_key_hash" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "previous_key_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "rerolled_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_previous_key_hash_unique" ON "api_keys" USING btree ("previous_key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_previous_key_expires_at_idx" ON "api_keys" USING btree ("previous_key_expires_at");