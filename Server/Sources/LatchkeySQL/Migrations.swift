import LatchkeyDomain
/// The versioned schema, one list of statements per version, valid on both engines
/// (`BIGINT` is an integer in SQLite; booleans are 0/1; times are seconds since 1970).
package enum Migrations {
    package static let all: [(version: Int, statements: [String])] = [
        (1, [
            """
            CREATE TABLE users (
                id TEXT PRIMARY KEY, issuer TEXT NOT NULL, email TEXT NOT NULL, email_normalized TEXT NOT NULL,
                first_name TEXT, last_name TEXT, phone TEXT, external_id TEXT,
                password_hash TEXT, passcode_hash TEXT, email_verified BIGINT NOT NULL DEFAULT 0,
                status TEXT NOT NULL DEFAULT 'active', profile_json TEXT NOT NULL DEFAULT '{}',
                created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)
            """,
            "CREATE UNIQUE INDEX users_issuer_email ON users (issuer, email_normalized)",
            """
            CREATE TABLE mfa_answers (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, question TEXT NOT NULL,
                answer_hash TEXT NOT NULL, PRIMARY KEY (user_id, question))
            """,
            """
            CREATE TABLE tokens (
                digest TEXT PRIMARY KEY, purpose TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, device_id TEXT,
                created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT)
            """,
            "CREATE INDEX tokens_user ON tokens (user_id, purpose)",
            """
            CREATE TABLE outbox (
                id TEXT PRIMARY KEY, channel TEXT NOT NULL, recipient TEXT NOT NULL, template TEXT NOT NULL,
                subject TEXT NOT NULL, sealed_payload TEXT, created_at BIGINT NOT NULL,
                attempts BIGINT NOT NULL DEFAULT 0, next_attempt_at BIGINT NOT NULL, locked_until BIGINT,
                delivered_at BIGINT, failed_at BIGINT, last_error TEXT)
            """,
            "CREATE INDEX outbox_due ON outbox (delivered_at, failed_at, next_attempt_at)",
        ]),
        (2, [
            "ALTER TABLE users ADD COLUMN failed_attempts BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE users ADD COLUMN app_instance_verified BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE users ADD COLUMN password_updated_at BIGINT",
            "ALTER TABLE users ADD COLUMN last_login_at BIGINT",
            "ALTER TABLE tokens ADD COLUMN data TEXT",
            """
            CREATE TABLE devices (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, device_id TEXT NOT NULL,
                device_type TEXT, status TEXT NOT NULL DEFAULT 'active', failed_attempts BIGINT NOT NULL DEFAULT 0,
                linked_at BIGINT NOT NULL, last_login_at BIGINT, PRIMARY KEY (user_id, device_id))
            """,
            "CREATE INDEX devices_device ON devices (device_id, linked_at)",
            """
            CREATE TABLE sessions (
                digest TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                device_id TEXT, created_at BIGINT NOT NULL, last_seen_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL, revoked_at BIGINT)
            """,
            "CREATE INDEX sessions_user ON sessions (user_id)",
            """
            CREATE TABLE device_tokens (
                digest TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                device_id TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, revoked_at BIGINT)
            """,
            "CREATE INDEX device_tokens_user ON device_tokens (user_id, device_id)",
        ]),
        (3, [
            "ALTER TABLE users ADD COLUMN locked BIGINT NOT NULL DEFAULT 0",
            """
            CREATE TABLE password_history (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, password_hash TEXT NOT NULL,
                created_at BIGINT NOT NULL)
            """,
            "CREATE INDEX password_history_user ON password_history (user_id, created_at)",
        ]),
        (4, [
            "ALTER TABLE tokens ADD COLUMN attempts BIGINT NOT NULL DEFAULT 0",
        ]),
        (5, [
            """
            CREATE TABLE flows (
                id TEXT PRIMARY KEY, issuer TEXT NOT NULL, kind TEXT NOT NULL, request_url TEXT NOT NULL,
                created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT,
                phone TEXT, phone_verified_at BIGINT, otp_digest TEXT, otp_expires_at BIGINT,
                otp_attempts BIGINT NOT NULL DEFAULT 0, otp_sends BIGINT NOT NULL DEFAULT 0, otp_sent_at BIGINT)
            """,
            "ALTER TABLE users ADD COLUMN phone_normalized TEXT",
            "CREATE UNIQUE INDEX users_issuer_phone ON users (issuer, phone_normalized)",
            """
            CREATE TABLE device_certificates (
                serial TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                device_id TEXT NOT NULL, public_key TEXT NOT NULL, certificate TEXT NOT NULL,
                created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)
            """,
            "CREATE INDEX device_certificates_user ON device_certificates (user_id, device_id)",
        ]),
        (6, [
            """
            CREATE TABLE federated_identities (
                provider_id TEXT NOT NULL, subject TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, created_at BIGINT NOT NULL,
                PRIMARY KEY (provider_id, subject))
            """,
            "CREATE INDEX federated_identities_user ON federated_identities (user_id)",
            """
            CREATE TABLE federation_nonces (
                digest TEXT PRIMARY KEY, provider_id TEXT NOT NULL, subject TEXT NOT NULL, email TEXT,
                email_verified BIGINT NOT NULL DEFAULT 0, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT)
            """,
        ]),
        (7, [
            "ALTER TABLE sessions ADD COLUMN key_thumbprint TEXT",
            // A device key (`jkt:` + its RFC 7638 thumbprint) is linked to one wallet at most.
            "CREATE UNIQUE INDEX devices_key ON devices (device_id) WHERE device_id LIKE 'jkt:%'",
            // The app's name for a device (`X-Device-ID`), shown in device lists.
            "ALTER TABLE devices ADD COLUMN label TEXT",
            "ALTER TABLE device_certificates ADD COLUMN revoked_at BIGINT",
            // DPoP proofs of credential calls, so a replay is refused on every replica.
            "CREATE TABLE dpop_proofs (digest TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)",
            "CREATE INDEX dpop_proofs_expiry ON dpop_proofs (expires_at)",
        ]),
        (8, [
            // A phone sign-up's session works on Kratos's routes only until its device key is registered.
            "ALTER TABLE sessions ADD COLUMN limited BIGINT NOT NULL DEFAULT 0",
            // Relying parties look certificates up by serial (their revocation status).
            "CREATE INDEX device_certificates_device ON device_certificates (user_id, device_id)",
            // The MFA question a wallet is asked until it is answered (every device, every reset link).
            """
            CREATE TABLE mfa_pending_questions (
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE, question TEXT NOT NULL,
                chosen_at BIGINT NOT NULL)
            """,
            // Throttles every replica shares: reset answers per account, emails per address, codes
            // and wrong codes per number, SMS per issuer (`WindowCounterStore`).
            "CREATE TABLE window_counters (key TEXT PRIMARY KEY, window_start BIGINT NOT NULL, count BIGINT NOT NULL)",
            "CREATE INDEX window_counters_start ON window_counters (window_start)",
        ]),
        (9, [
            // Smart lockout: failures from devices not linked to the wallet, and their temporary lockout.
            """
            CREATE TABLE unlinked_attempts (
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE, failures BIGINT NOT NULL,
                locked_until BIGINT NOT NULL, lockouts BIGINT NOT NULL)
            """,
            // The audit trail: appended in the transaction of the change it records; no foreign
            // key, so a deleted wallet's history stays.
            """
            CREATE TABLE audit_events (
                id TEXT PRIMARY KEY, occurred_at BIGINT NOT NULL, type TEXT NOT NULL, outcome TEXT NOT NULL,
                user_id TEXT, actor TEXT NOT NULL, reason TEXT, device_id TEXT, client_ip TEXT, details TEXT NOT NULL)
            """,
            "CREATE INDEX audit_events_user ON audit_events (user_id, id)",
            "CREATE INDEX audit_events_time ON audit_events (occurred_at)",
            // Fingerprints of the pepper and the CA certificate, recorded by the first server: a
            // replica with other secrets refuses to start.
            "CREATE TABLE secret_fingerprints (name TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, recorded_at BIGINT NOT NULL)",
        ]),
        (10, [
            // An unverified self-registration reserves nothing: until its link is opened it may be
            // replaced by another registration of its address, and it is deleted once this passes.
            "ALTER TABLE users ADD COLUMN pending_until BIGINT",
            "CREATE INDEX users_pending ON users (pending_until) WHERE pending_until IS NOT NULL",
            // When the login that opened a session checked a password, PIN or MFA answer: only such
            // a session is privileged for a while (NULL for older sessions: not privileged).
            "ALTER TABLE sessions ADD COLUMN factor_checked_at BIGINT",
        ]),
        (11, [
            // What a device runs at its latest login (the app's applicationVersion, the SDK's version).
            "ALTER TABLE devices ADD COLUMN app_version TEXT",
            "ALTER TABLE devices ADD COLUMN sdk_version TEXT",
            // The apps' login statistics: one row per device, method and day of receipt (so a device
            // holds at most six rows a day, and one more per failure code, however often it reports);
            // the ids of the batches taken, so a batch sent again is not counted twice.
            """
            CREATE TABLE login_statistics (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, device_id TEXT NOT NULL,
                method TEXT NOT NULL, day BIGINT NOT NULL,
                successes BIGINT NOT NULL, mfa_prompts BIGINT NOT NULL,
                latency_total_ms BIGINT NOT NULL, latency_max_ms BIGINT NOT NULL,
                PRIMARY KEY (user_id, device_id, method, day))
            """,
            "CREATE INDEX login_statistics_day ON login_statistics (day)",
            """
            CREATE TABLE login_statistics_failures (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, device_id TEXT NOT NULL,
                method TEXT NOT NULL, day BIGINT NOT NULL, code TEXT NOT NULL, count BIGINT NOT NULL,
                PRIMARY KEY (user_id, device_id, method, day, code))
            """,
            "CREATE INDEX login_statistics_failures_day ON login_statistics_failures (day)",
            """
            CREATE TABLE login_statistics_batches (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, device_id TEXT NOT NULL,
                batch_id TEXT NOT NULL, day BIGINT NOT NULL, PRIMARY KEY (user_id, device_id, batch_id))
            """,
            "CREATE INDEX login_statistics_batches_day ON login_statistics_batches (day)",
        ]),
        // Operators' API keys for the admin API: digests only.
        (12, [
            """
            CREATE TABLE operator_keys (
                id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL, digest TEXT NOT NULL UNIQUE,
                created_at BIGINT NOT NULL, expires_at BIGINT, revoked_at BIGINT, last_used_at BIGINT)
            """,
        ]),
        // The admin API's pages of users, newest first.
        (13, [
            "CREATE INDEX users_issuer_created ON users (issuer, created_at, id)",
            "CREATE INDEX sessions_user_seen ON sessions (user_id, last_seen_at)",
        ]),
        // The courier's messages by state, newest first, for the admin API: partial indexes so a
        // page of the few pending or failed messages reads no sent ones.
        (14, [
            "CREATE INDEX outbox_created ON outbox (created_at, id)",
            "CREATE INDEX outbox_pending ON outbox (created_at, id) WHERE delivered_at IS NULL AND failed_at IS NULL",
            "CREATE INDEX outbox_failed ON outbox (created_at, id) WHERE failed_at IS NOT NULL",
        ]),
        // The operator console's accounts and sign-ins.
        (15, [
            """
            CREATE TABLE operator_accounts (
                id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, role TEXT NOT NULL, password_hash TEXT, totp_secret TEXT,
                totp_last_step BIGINT, failed_attempts BIGINT NOT NULL DEFAULT 0, locked_until BIGINT, setup_digest TEXT,
                setup_expires_at BIGINT, created_at BIGINT NOT NULL, disabled_at BIGINT)
            """,
            """
            CREATE TABLE console_sessions (
                digest TEXT PRIMARY KEY, operator_id TEXT NOT NULL REFERENCES operator_accounts(id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL, last_seen_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)
            """,
            "CREATE INDEX console_sessions_operator ON console_sessions (operator_id)",
        ]),
        // Email prefix search (admin API, console) in byte order: SQLite's unique index on
        // (issuer, email_normalized) is already BINARY; PostgreSQL's follows the database's
        // collation, so it gets one in "C" (engine-specific below).
        (16, []),
        // The admin API's pages at scale: each filter of the events reads an index
        // ending in the id, so a page reads what it returns (the time range is an id range); the
        // rarer user states have partial indexes in the page's order; the external id an index of its own;
        // a user's live sessions, live device tokens and newest certificates (its detail) theirs.
        // IF NOT EXISTS: on a large PostgreSQL database an operator may build them beforehand with
        // CREATE INDEX CONCURRENTLY under these names, so the migration does not hold writes
        // (docs/operations.md, "Upgrading a large database").
        (17, [
            "CREATE INDEX IF NOT EXISTS audit_events_type ON audit_events (type, id)",
            "CREATE INDEX IF NOT EXISTS audit_events_outcome ON audit_events (outcome, id)",
            "CREATE INDEX IF NOT EXISTS audit_events_client ON audit_events (client_ip, id)",
            "CREATE INDEX IF NOT EXISTS users_locked ON users (issuer, created_at, id) WHERE locked = 1",
            "CREATE INDEX IF NOT EXISTS users_deactivated ON users (issuer, created_at, id) WHERE status <> 'active'",
            "CREATE INDEX IF NOT EXISTS users_unverified ON users (issuer, created_at, id) WHERE email_verified = 0",
            "CREATE INDEX IF NOT EXISTS users_external_id ON users (issuer, external_id, created_at, id)",
            "CREATE INDEX IF NOT EXISTS device_tokens_live ON device_tokens (user_id, expires_at, digest) WHERE revoked_at IS NULL",
            "CREATE INDEX IF NOT EXISTS device_certificates_newest ON device_certificates (user_id, created_at)",
            "CREATE INDEX IF NOT EXISTS sessions_user_live ON sessions (user_id, last_seen_at, digest) WHERE revoked_at IS NULL",
        ]),
        // The console dashboard's counts of each hour that is over (`SQLStore+Dashboard`); the row
        // with the empty series marks an hour as counted.
        // A user's latest events without operators' reads of it (`reason` 'read'), read in order.
        (18, [
            "CREATE TABLE dashboard_hours (hour BIGINT NOT NULL, series TEXT NOT NULL, count BIGINT NOT NULL, PRIMARY KEY (hour, series))",
            "CREATE INDEX IF NOT EXISTS audit_events_user_doings ON audit_events (user_id, id) WHERE (reason IS NULL OR reason <> 'read')",
        ]),
        // The console's failed sign-ins, counted per operator and client address
        // (`SQLStore+OperatorAttempts`), so a stranger's failures lock only the stranger's address
        // out. `operator_accounts.failed_attempts` and `locked_until` are no longer read; they stay
        // so that the previous version still starts on this schema.
        (19, [
            """
            CREATE TABLE operator_attempts (
                operator_id TEXT NOT NULL REFERENCES operator_accounts(id) ON DELETE CASCADE, client_ip TEXT NOT NULL,
                failures BIGINT NOT NULL, last_failed_at BIGINT NOT NULL, locked_until BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (operator_id, client_ip))
            """,
        ]),
        // Pages of users in the order they were stored, strictly increasing, so users stored
        // during a listing never move its pages (a creation second and a random id would not be):
        // SQLite's rowid, PostgreSQL's `seq` (engine-specific below); the state's partial
        // indexes follow that order instead of (created_at, id).
        (20, [
            "DROP INDEX IF EXISTS users_locked",
            "DROP INDEX IF EXISTS users_deactivated",
            "DROP INDEX IF EXISTS users_unverified",
        ]),
        // The languages a customer reads (`Accept-Language` at registration and login), which
        // the messages about the wallet are written in.
        (21, ["ALTER TABLE users ADD COLUMN languages TEXT"]),
        // Second factors beside the questions: passkeys (the COSE public key and the credential id
        // base64url, unique across wallets), the authenticator app (its secret sealed like the
        // operators' TOTP secrets, the last step accepted so each is accepted once) and recovery
        // codes (hashed like passwords, each used once).
        (22, [
            """
            CREATE TABLE passkeys (
                id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                credential_id TEXT NOT NULL UNIQUE, public_key TEXT NOT NULL, algorithm BIGINT NOT NULL,
                sign_count BIGINT NOT NULL DEFAULT 0, backup_eligible BIGINT NOT NULL DEFAULT 0,
                backup_state BIGINT NOT NULL DEFAULT 0, aaguid TEXT, transports TEXT, attestation_format TEXT,
                name TEXT NOT NULL, created_at BIGINT NOT NULL, last_used_at BIGINT)
            """,
            "CREATE INDEX passkeys_user ON passkeys (user_id, created_at)",
            """
            CREATE TABLE totp_factors (
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE, sealed_secret TEXT NOT NULL,
                confirmed_at BIGINT, last_step BIGINT, created_at BIGINT NOT NULL, last_used_at BIGINT)
            """,
            """
            CREATE TABLE recovery_codes (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, position BIGINT NOT NULL,
                code_hash TEXT NOT NULL, used_at BIGINT, created_at BIGINT NOT NULL, PRIMARY KEY (user_id, position))
            """,
            // The passkey ceremonies' challenges (by digest), each taken once; a discoverable
            // login's belongs to no wallet yet, so they are not kept in `tokens`.
            """
            CREATE TABLE webauthn_challenges (
                digest TEXT PRIMARY KEY, purpose TEXT NOT NULL, user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
                device_id TEXT, data TEXT, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)
            """,
            "CREATE INDEX webauthn_challenges_expiry ON webauthn_challenges (expires_at)",
        ]),
        // The audit trail by week on PostgreSQL (engine-specific below); SQLite keeps its table.
        (23, []),
    ]

    /// Statements of a version in one engine's own dialect, run after the common ones.
    package static let engineSpecific: [Int: [DatabaseEngine: [String]]] = [
        // An index on (issuer) ends in the rowid on SQLite. On PostgreSQL the existing users are
        // numbered in their (created_at, id) order, the newest highest, then a sequence numbers
        // each new one; every row is written once (docs/operations.md, "Upgrading a large database").
        20: [
            .sqlite: [
                "CREATE INDEX IF NOT EXISTS users_issuer_position ON users (issuer)",
                "CREATE INDEX IF NOT EXISTS users_locked_position ON users (issuer) WHERE locked = 1",
                "CREATE INDEX IF NOT EXISTS users_deactivated_position ON users (issuer) WHERE status <> 'active'",
                "CREATE INDEX IF NOT EXISTS users_unverified_position ON users (issuer) WHERE email_verified = 0",
            ],
            .postgres: [
                "ALTER TABLE users ADD COLUMN seq BIGINT",
                "CREATE SEQUENCE users_seq OWNED BY users.seq",
                """
                UPDATE users SET seq = ranked.n
                FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM users) ranked WHERE users.id = ranked.id
                """,
                "SELECT setval('users_seq', (SELECT COALESCE(MAX(seq), 0) + 1 FROM users), false)",
                "ALTER TABLE users ALTER COLUMN seq SET DEFAULT nextval('users_seq')",
                "ALTER TABLE users ALTER COLUMN seq SET NOT NULL",
                "CREATE UNIQUE INDEX users_issuer_position ON users (issuer, seq)",
                "CREATE INDEX users_locked_position ON users (issuer, seq) WHERE locked = 1",
                "CREATE INDEX users_deactivated_position ON users (issuer, seq) WHERE status <> 'active'",
                "CREATE INDEX users_unverified_position ON users (issuer, seq) WHERE email_verified = 0",
            ],
        ],
        // The audit trail is append-only in the database too: no update, and no deletion of a
        // row younger than a day (the retention purge deletes older ones).
        9: [
            .sqlite: [
                """
                CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
                BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END
                """,
                """
                CREATE TRIGGER audit_events_no_early_delete BEFORE DELETE ON audit_events
                WHEN OLD.occurred_at > CAST(strftime('%s', 'now') AS INTEGER) - 86400
                BEGIN SELECT RAISE(ABORT, 'audit_events younger than a day cannot be deleted'); END
                """,
            ],
            .postgres: [
                """
                CREATE FUNCTION audit_events_guard() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP = 'UPDATE' THEN RAISE EXCEPTION 'audit_events is append-only'; END IF;
                    IF OLD.occurred_at > extract(epoch FROM now())::bigint - 86400 THEN
                        RAISE EXCEPTION 'audit_events younger than a day cannot be deleted';
                    END IF;
                    RETURN OLD;
                END $$
                """,
                """
                CREATE TRIGGER audit_events_guard BEFORE UPDATE OR DELETE ON audit_events
                FOR EACH ROW EXECUTE FUNCTION audit_events_guard()
                """,
            ],
        ],
        16: [
            .sqlite: [],
            .postgres: [#"CREATE INDEX users_issuer_email_bytes ON users (issuer, email_normalized COLLATE "C")"#],
        ],
        // Erasing a user (admin API) redacts its events: the only change the trail allows is
        // emptying what identifies the person beyond the user id (details, client address,
        // device) of an event about a user who no longer exists, every other column unchanged
        // (compared NULL-safely), and never of an operator's own event.
        14: [
            .sqlite: [
                "DROP TRIGGER audit_events_no_update",
                """
                CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
                WHEN NOT coalesce((\(redaction(same: "IS"))), 0)
                BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END
                """,
            ],
            .postgres: [
                """
                CREATE OR REPLACE FUNCTION audit_events_guard() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP = 'UPDATE' THEN
                        IF coalesce((\(redaction(same: "IS NOT DISTINCT FROM"))), false) THEN RETURN NEW; END IF;
                        RAISE EXCEPTION 'audit_events is append-only';
                    END IF;
                    IF OLD.occurred_at > extract(epoch FROM now())::bigint - 86400 THEN
                        RAISE EXCEPTION 'audit_events younger than a day cannot be deleted';
                    END IF;
                    RETURN OLD;
                END $$
                """,
            ],
        ],
        23: [.sqlite: [], .postgres: AuditPartitioning.migration],
    ]

    /// The one update of an audit event the triggers let through, `same` the engine's NULL-safe equality.
    private static func redaction(same: String) -> String {
        """
        OLD.user_id IS NOT NULL AND OLD.type NOT IN ('operator.command', 'user.erased')
        AND NOT EXISTS (SELECT 1 FROM users WHERE users.id = OLD.user_id)
        AND NEW.id \(same) OLD.id AND NEW.occurred_at \(same) OLD.occurred_at AND NEW.type \(same) OLD.type
        AND NEW.outcome \(same) OLD.outcome AND NEW.user_id \(same) OLD.user_id AND NEW.actor \(same) OLD.actor
        AND NEW.reason \(same) OLD.reason AND NEW.details \(same) '{}' AND NEW.client_ip IS NULL AND NEW.device_id IS NULL
        """
    }

    /// The newest schema version.
    package static var latest: Int { all.map(\.version).max() ?? 0 }
}
