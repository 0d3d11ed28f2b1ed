ALTER TABLE "sessions" ADD COLUMN "impersonated_by" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "banned" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "ban_reason" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "ban_expires" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "users_email_c_idx" ON "users" USING btree ("email" collate "C","id");--> statement-breakpoint
CREATE INDEX "users_name_c_idx" ON "users" USING btree (lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "users_created_at_idx" ON "users" USING btree ("created_at","id");