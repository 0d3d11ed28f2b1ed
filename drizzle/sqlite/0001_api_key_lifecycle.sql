ALTER TABLE `api_keys` ADD `locked` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `server_metadata` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `refill_amount` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `refill_interval_ms` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `last_refill_at` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `previous_key_hash` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `previous_key_expires_at` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `rerolled_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_previous_key_hash_unique` ON `api_keys` (`previous_key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_previous_key_expires_at_idx` ON `api_keys` (`previous_key_expires_at`);