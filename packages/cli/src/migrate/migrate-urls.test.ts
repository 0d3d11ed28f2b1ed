import { describe, expect, it } from "vitest";
import { databaseKind, migrate, redactUrl } from "./migrate.ts";
import { latchkey, SUBPROCESS_TIMEOUT } from "./test-fixtures.ts";

describe("latchkey migrate", () => {
  it(
    "refuses a missing or unsupported --database with the usage and exit code 2, printing no password",
    SUBPROCESS_TIMEOUT,
    async () => {
      const missing = await latchkey("migrate");
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("latchkey migrate --database <url>");
      const mysql = await latchkey("migrate", "--database", "mysql://root:hunter2@localhost/app");
      expect(mysql.code).toBe(2);
      expect(mysql.stderr).toContain("unsupported database URL mysql://root:***@localhost/app");
      expect(mysql.stderr + mysql.stdout).not.toContain("hunter2");
      const dsn = await latchkey("migrate", "--database", "host=localhost user=app password=hunter3 dbname=app");
      expect(dsn.code).toBe(2);
      expect(dsn.stderr).toContain("unsupported database URL host=localhost user=app password=*** dbname=app");
      expect(dsn.stderr + dsn.stdout).not.toContain("hunter3");
      await expect(migrate("mysql://localhost/app")).rejects.toThrow(
        /expected postgres:\/\/, postgresql:\/\/, file:, libsql:\/\/ or mongodb:\/\//,
      );
    },
  );

  it("classifies URLs and masks passwords and auth tokens", () => {
    expect(
      [
        "postgres://h/d",
        "postgresql://h/d",
        "file:/tmp/a.db",
        "libsql://db.example.io",
        "mongodb+srv://c/d",
        "mysql://h/d",
      ].map(databaseKind),
    ).toEqual(["postgres", "postgres", "sqlite", "sqlite", "mongodb", null]);
    expect(redactUrl("postgres://app:s3cret@db:5432/auth")).toBe("postgres://app:***@db:5432/auth");
    expect(redactUrl("libsql://db.example.io?authToken=eyJhbGciOi")).toBe("libsql://db.example.io?authToken=***");
    expect(redactUrl("file:./auth.db")).toBe("file:./auth.db");
  });

  it("masks multi-host user-info and password parameters, which new URL() cannot parse", () => {
    expect(redactUrl("mongodb://admin:S3cret@db1,db2/app?replicaSet=rs0")).toBe(
      "mongodb://admin:***@db1,db2/app?replicaSet=rs0",
    );
    expect(redactUrl("mongodb://admin:p@ss:w0rd@db1:27017,db2:27017/app")).toBe(
      "mongodb://admin:***@db1:27017,db2:27017/app",
    );
    expect(redactUrl("postgres://db/auth?user=app&password=S3cret&sslmode=require")).toBe(
      "postgres://db/auth?user=app&password=***&sslmode=require",
    );
    expect(redactUrl("postgresql://app@db/auth?sslpassword=k3y&PASSWORD=x")).toBe(
      "postgresql://app@db/auth?sslpassword=***&PASSWORD=***",
    );
    expect(redactUrl("file:./auth.db?authToken=abc")).toBe("file:./auth.db?authToken=***");
  });

  // Issue 50, item 6: the user-info ended at the first `/`, `?` or `#`, and keyword DSNs were echoed whole.
  it("takes the user-info up to the last @ before the host, and masks password= in keyword DSNs", async () => {
    expect(redactUrl("postgres://admin:S3c/ret@host/db")).toBe("postgres://admin:***@host/db");
    expect(redactUrl("postgres://admin:S3c?r#e@t@host:5432/db?sslmode=require&password=two")).toBe(
      "postgres://admin:***@host:5432/db?sslmode=require&password=***",
    );
    expect(redactUrl("mongodb://admin:a/b@c@db1,db2/app")).toBe("mongodb://admin:***@db1,db2/app");
    expect(redactUrl("postgres://db/auth")).toBe("postgres://db/auth");
    expect(redactUrl("host=db.internal port=5432 user=app password=S3cret dbname=auth")).toBe(
      "host=db.internal port=5432 user=app password=*** dbname=auth",
    );
    expect(redactUrl("host=db password = 'S3 c\\'ret' sslpassword=k3y user=app")).toBe(
      "host=db password = *** sslpassword=*** user=app",
    );
    // The "unsupported database URL" error of migrate and sweep.
    const dsn = "host=127.0.0.1 user=app password=S3cret-dsn dbname=auth";
    await expect(migrate(dsn)).rejects.toThrow(
      "unsupported database URL host=127.0.0.1 user=app password=*** dbname=auth",
    );
    await expect(migrate(dsn)).rejects.not.toThrow(/S3cret/);
    await expect(migrate("mysql://root:S3c/ret@db/app")).rejects.toThrow(
      "unsupported database URL mysql://root:***@db/app",
    );
    await expect(migrate("mysql://root:S3c/ret@db/app")).rejects.not.toThrow(/S3c|ret@/);
  });

  it(
    "latchkey migrate never prints a database password: multi-host user-info, ?password=, driver errors",
    SUBPROCESS_TIMEOUT,
    async () => {
      const attempts = [
        ["--database", "postgres://app:S3cret-one@127.0.0.1:1/auth"],
        ["--database=postgres://127.0.0.1:1/auth?user=app&password=S3cret-two"],
        [
          "--database",
          "mongodb://admin:S3cret-three@127.0.0.1:1,127.0.0.2:1/app?serverSelectionTimeoutMS=300&connectTimeoutMS=300",
        ],
        ["--database", "postgres://app:S3cret/four@127.0.0.1:1/auth"],
      ];
      for (const args of attempts) {
        const result = await latchkey("migrate", ...args);
        expect(result.code, args.join(" ")).toBe(1);
        const printed = result.stdout + result.stderr;
        expect(printed).toMatch(/Migrating .*\*\*\*/);
        expect(printed).not.toMatch(/S3cret/);
      }
    },
  );
});
