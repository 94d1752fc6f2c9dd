/// The audit trail on PostgreSQL is partitioned by week of `occurred_at` (migration 23): a
/// trail of ten million events a week keeps a year's retention in 53 partitions of about ten
/// million rows each, so the retention drops one whole partition a week instead of deleting ten
/// million rows, and a time-bounded read opens only the weeks it asks for. Weeks start on Monday
/// 00:00 UTC. A default partition catches an event dated outside every week that was made.
///
/// The primary key is `(id, occurred_at)`: PostgreSQL requires the partition key in it. An id
/// starts with its event's time in microseconds (`AuditEvent.newID`), so one id has one
/// `occurred_at` and `(id, occurred_at)` unique is `id` unique.
package enum AuditPartitioning {
    /// Seconds in a partition's range.
    package static let week: Int64 = 604_800
    /// The advisory lock (transaction-scoped) that makes, moves and drops partitions one
    /// replica at a time.
    package static let lock = 7414
    /// How far ahead of now the server keeps weeks made (it checks every hour).
    package static let weeksAhead: Int64 = 4

    /// The start of the week (Monday 00:00 UTC; 1970-01-05 was the first) that holds `second`.
    package static func weekStart(_ second: Int64) -> Int64 {
        let monday: Int64 = 345_600
        return (second - monday).floorDivided(by: week) * week + monday
    }

    /// Migration 23 on PostgreSQL: the existing table becomes the partition of everything up to
    /// the end of the week under way (its rows are neither copied nor moved: one scan validates
    /// the range, its indexes become the partitions' own), or is dropped when it is empty; then the
    /// default partition and the weeks ahead are made. See docs/operations.md, "Upgrading a
    /// large database".
    package static var migration: [String] {
        var statements = [
            // On a large trail an operator may build it beforehand: CREATE UNIQUE INDEX CONCURRENTLY.
            "CREATE UNIQUE INDEX IF NOT EXISTS audit_events_id_time ON audit_events (id, occurred_at)",
            "DROP TRIGGER audit_events_guard ON audit_events",
            "ALTER TABLE audit_events DROP CONSTRAINT audit_events_pkey",
            "ALTER TABLE audit_events ADD CONSTRAINT audit_events_unpartitioned_pkey PRIMARY KEY USING INDEX audit_events_id_time",
            "ALTER TABLE audit_events RENAME TO audit_events_unpartitioned",
        ]
        for (name, _) in indexes {
            statements.append("ALTER INDEX \(name) RENAME TO \(name.replacingOccurrences(of: "audit_events", with: "audit_events_unpartitioned"))")
        }
        statements.append("""
            CREATE TABLE audit_events (
                id TEXT NOT NULL, occurred_at BIGINT NOT NULL, type TEXT NOT NULL, outcome TEXT NOT NULL,
                user_id TEXT, actor TEXT NOT NULL, reason TEXT, device_id TEXT, client_ip TEXT, details TEXT NOT NULL,
                PRIMARY KEY (id, occurred_at)) PARTITION BY RANGE (occurred_at)
            """)
        for (name, definition) in indexes { statements.append("CREATE INDEX \(name) ON audit_events \(definition)") }
        // Cloned onto every partition, those made later too.
        statements.append("""
            CREATE TRIGGER audit_events_guard BEFORE UPDATE OR DELETE ON audit_events
            FOR EACH ROW EXECUTE FUNCTION audit_events_guard()
            """)
        statements += ["CREATE TABLE audit_events_default PARTITION OF audit_events DEFAULT", partitionsView, makePartitions]
        statements.append("""
            DO $$
            DECLARE
                now_time bigint := extract(epoch FROM now())::bigint;
                newest bigint := (SELECT max(occurred_at) FROM audit_events_unpartitioned);
                bound bigint := floor((greatest(now_time, coalesce(newest, 0)) - 345600)::numeric / 604800)::bigint * 604800 + 345600 + 604800;
            BEGIN
                IF newest IS NULL THEN
                    DROP TABLE audit_events_unpartitioned;
                ELSE
                    -- Validated once here, so ATTACH reads the table no second time.
                    EXECUTE format('ALTER TABLE audit_events_unpartitioned ADD CONSTRAINT audit_events_unpartitioned_range CHECK (occurred_at < %s)', bound);
                    EXECUTE format('ALTER TABLE audit_events ATTACH PARTITION audit_events_unpartitioned FOR VALUES FROM (MINVALUE) TO (%s)', bound);
                END IF;
                PERFORM audit_events_make_partitions(now_time, now_time + \(weeksAhead) * 604800);
            END $$
            """)
        return statements
    }

    /// The trail's indexes (migrations 9, 17, 18), made on the partitioned table so that every
    /// partition has them.
    static let indexes: [(String, String)] = [
        ("audit_events_user", "(user_id, id)"),
        ("audit_events_time", "(occurred_at)"),
        ("audit_events_type", "(type, id)"),
        ("audit_events_outcome", "(outcome, id)"),
        ("audit_events_client", "(client_ip, id)"),
        ("audit_events_user_doings", "(user_id, id) WHERE (reason IS NULL OR reason <> 'read')"),
    ]

    /// `audit_event_partitions`: each partition of the trail with its range in seconds since
    /// 1970 (`range_start` NULL: unbounded below, the table from before the upgrade), the default
    /// marked. What operators list and what the retention reads.
    static let partitionsView = """
        CREATE VIEW audit_event_partitions AS
        SELECT c.relname::text AS name, bound = 'DEFAULT' AS is_default,
            substring(bound FROM 'FROM \\(''(-?[0-9]+)''\\)')::bigint AS range_start,
            substring(bound FROM 'TO \\(''(-?[0-9]+)''\\)')::bigint AS range_end
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid, pg_get_expr(c.relpartbound, c.oid) AS bound
        WHERE i.inhparent = 'audit_events'::regclass
        """

    /// `audit_events_make_partitions(from, through)`: makes every week from the one holding
    /// `from` to the one holding `through` that no partition covers yet, named by its Monday
    /// (`audit_events_20261123`); answers how many it made. Idempotent, and replicas take turns
    /// (the advisory lock). A week that has rows in the default partition could not be made
    /// beside them: the default is detached and replaced, the week made, and the old default's
    /// rows inserted again (each lands in its week or the new default) — no row is deleted, so
    /// the trail's guard against deletions stays whole.
    static let makePartitions = """
        CREATE FUNCTION audit_events_make_partitions(first_time bigint, last_time bigint) RETURNS integer
        LANGUAGE plpgsql AS $$
        DECLARE
            week CONSTANT bigint := 604800;
            start bigint := floor((first_time - 345600)::numeric / 604800)::bigint * 604800 + 345600;
            made integer := 0;
            name text;
            crowded boolean;
        BEGIN
            PERFORM pg_advisory_xact_lock(\(lock));
            WHILE start <= last_time LOOP
                IF NOT EXISTS (SELECT 1 FROM audit_event_partitions p WHERE NOT p.is_default
                               AND coalesce(p.range_start, start) < start + week AND p.range_end > start) THEN
                    name := 'audit_events_' || to_char(to_timestamp(start) AT TIME ZONE 'UTC', 'YYYYMMDD');
                    EXECUTE 'SELECT EXISTS (SELECT 1 FROM audit_events_default WHERE occurred_at >= $1 AND occurred_at < $2)'
                        INTO crowded USING start, start + week;
                    IF crowded THEN
                        EXECUTE 'ALTER TABLE audit_events DETACH PARTITION audit_events_default';
                        EXECUTE 'ALTER TABLE audit_events_default RENAME TO audit_events_default_moved';
                        EXECUTE 'CREATE TABLE audit_events_default PARTITION OF audit_events DEFAULT';
                    END IF;
                    EXECUTE format('CREATE TABLE %I PARTITION OF audit_events FOR VALUES FROM (%s) TO (%s)', name, start, start + week);
                    IF crowded THEN
                        EXECUTE 'INSERT INTO audit_events SELECT * FROM audit_events_default_moved';
                        EXECUTE 'DROP TABLE audit_events_default_moved';
                    END IF;
                    made := made + 1;
                END IF;
                start := start + week;
            END LOOP;
            RETURN made;
        END $$
        """
}

extension Int64 {
    /// The quotient rounded down (Swift's `/` rounds toward zero).
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return self % divisor < 0 ? quotient - 1 : quotient
    }
}
