DROP INDEX `users_username_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_unique` ON `users` (`username`) WHERE "users"."username" is not null;--> statement-breakpoint
DROP INDEX `verifications_user_id_idx`;--> statement-breakpoint
CREATE INDEX `verifications_user_id_idx` ON `verifications` (`user_id`) WHERE "verifications"."user_id" is not null;