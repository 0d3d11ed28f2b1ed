ALTER TABLE `accounts` ADD `account_id` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `access_token` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `refresh_token` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `id_token` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `access_token_expires_at` integer;--> statement-breakpoint
ALTER TABLE `accounts` ADD `refresh_token_expires_at` integer;--> statement-breakpoint
ALTER TABLE `accounts` ADD `scope` text;--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_provider_account_unique` ON `accounts` (`provider_id`,`account_id`) WHERE "accounts"."account_id" is not null;