import Crypto
import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import Logging

/// `--scale 10000,1000000`: the same logins and session check at growing numbers of identities,
/// imported with `UserImporter` (as `latchkey users import` does) into a database per size,
/// measured in interleaved rounds. Hashing is made cheap, so the database is what is measured.
///
/// Each operation cycles through `sample` users spread over the whole range of identities, each
/// with its own linked device and session; the users table, its indexes, the MFA answers and the
/// audit trail hold every identity, the devices and sessions tables the sampled ones.
enum ScaleBenchmark {
    static let password = "scale-pass-1"
    static let pin = "271828"
    static let sample = 2000

    /// One size: its own server and database, the users its operations cycle through.
    struct Size {
        var identities: Int
        var server: InProcessServer
        var driver: LoadDriver
        var users: [(index: Int, session: String)]
    }

    /// Each size gets a database of its own (imported up to that size), and the sizes are measured
    /// in alternation, `rounds` times, the median p99 of each kept: the machine drifts (a
    /// neighbour, the page cache, a checkpoint) by as much as the effect measured, and measuring
    /// one size after the other, in a database that also holds the first size's sessions, once
    /// put that drift into the ratio (1.49× for a login that measured 1.0× interleaved).
    static func run(sizes: [Int], database: String?, connections: Int, seconds: Double, rounds: Int,
                    logger: Logger) async throws {
        print("scale: in-process servers, a database per size, hashing scrypt logN=1 r=1 p=1, \(connections) connections, "
              + "\(Int(seconds)) s per operation, \(rounds) interleaved rounds, \(sample) sampled users")
        var prepared: [Size] = []
        for identities in sizes.sorted() {
            var url: String?
            if let database { url = try await databaseURL(database, identities: identities, logger: logger) }
            let server = try await start(database: url, logger: logger)
            let driver = LoadDriver(base: server.url, connections: connections)
            try await importIdentities(identities, into: server.application)
            prepared.append(Size(identities: identities, server: server, driver: driver,
                                 users: try await prepare(app: server.application, driver: driver, identities: identities)))
        }
        let names = operations([]).map(\.0)
        var runs = Array(repeating: Array(repeating: [LoadDriver.Result](), count: names.count), count: prepared.count)
        for _ in 0..<rounds {
            for (operation, name) in names.enumerated() {
                for (index, size) in prepared.enumerated() {
                    let request = operations(size.users)[operation].1
                    runs[index][operation].append(try await size.driver.measure("\(name) @ \(size.identities)", seconds: seconds,
                                                                                 request: request))
                }
            }
        }
        let medians = runs.map { $0.map { results in results.sorted { $0.percentile(0.99) < $1.percentile(0.99) }[results.count / 2] } }
        for (index, size) in prepared.enumerated() {
            for result in medians[index] { result.print(baseline: nil) }
            let p99s = runs[index].map { $0.map { String(format: "%.1f", $0.percentile(0.99)) }.joined(separator: " ") }
            print("  p99 of each round (ms) at \(size.identities): " + p99s.joined(separator: " | "))
        }
        if let first = medians.first, let last = medians.last, prepared.count > 1 {
            for (operation, name) in names.enumerated() {
                let ratio = last[operation].percentile(0.99) / max(0.001, first[operation].percentile(0.99))
                print(String(format: "p99 %@ at %d vs %d: %.2f× (target ≤ 1.2×)", name as NSString,
                             prepared.last!.identities, prepared[0].identities, ratio))
            }
        }
        for size in prepared {
            try await size.driver.shutdown()
            try await size.server.stop()
        }
    }

    static func start(database: String?, logger: Logger, admin: Bool = false) async throws -> InProcessServer {
        try await InProcessServer.start(logger: logger) { configuration in
            // The admin API on the measured port (`--admin-scale`).
            configuration.admin.enabled = admin
            configuration.admin.onPublicPort = admin
            if let database {
                configuration.database = database
                // A kept database is measured again with the secrets it recorded.
                let secrets = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "latchkey-bench-secrets-" + SHA256.hash(data: Data(database.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined())
                try? FileManager.default.createDirectory(at: secrets, withIntermediateDirectories: true)
                configuration.secrets.pepperFile = secrets.appendingPathComponent("pepper").path
                configuration.secrets.caKeyFile = secrets.appendingPathComponent("ca-key.pem").path
                configuration.secrets.caCertificateFile = secrets.appendingPathComponent("ca-cert.pem").path
                configuration.secrets.sealKeyFile = secrets.appendingPathComponent("seal-key.pem").path
            }
            configuration.hashing.logN = 1
            configuration.hashing.r = 1
            configuration.hashing.p = 1
            configuration.issuer.deviceBinding = .optional
            configuration.issuer.lockout.walletThreshold = 1000
            configuration.issuer.lockout.deviceThreshold = 1000
            configuration.rateLimits.enabled = false
            configuration.databaseTimeoutMilliseconds = 600_000 // VACUUM of a million rows
        }
    }

    /// The database of one size: `sqlite:FILE` gives `FILE-<size>`; `postgres://…/NAME` gives
    /// the database `NAME_<size>`, created if missing. Kept, so a later run imports nothing.
    static func databaseURL(_ base: String, identities: Int, logger: Logger) async throws -> String {
        guard try DatabaseURL(base).engine == .postgres, var components = URLComponents(string: base) else {
            return base + "-\(identities)"
        }
        let name = components.path.dropFirst().isEmpty ? "latchkey" : String(components.path.dropFirst())
        let sized = "\(name)_\(identities)"
        try await StoreFactory.withStore(base, logger: logger, migrate: false) { store in
            guard let engine = (store as? SQLStore)?.engine else { return }
            if try await engine.read("SELECT 1 AS found FROM pg_database WHERE datname = $1", [.text(sized)]).isEmpty {
                try await engine.execute("CREATE DATABASE \"\(sized)\"")
            }
        }
        components.path = "/" + sized
        return components.string ?? base
    }

    /// Imports the identities `app`'s database lacks up to `identities` (`UserImporter`), then settles it.
    static func importIdentities(_ identities: Int, into app: LatchkeyApplication) async throws {
        let questions = Array(app.configuration.issuer.mfa.questions.prefix(2).map(\.mfaQuestion))
        let passwordHash = try await app.hasher.hash(password), pinHash = try await app.hasher.hash(pin)
        let answerHash = try await app.hasher.hash("answer")
        func line(_ index: Int) -> Substring {
            let answers = questions.map { #"{"question": "\#($0)", "hash": "\#(answerHash)"}"# }.joined(separator: ", ")
            return Substring(#"{"email": "scale-\#(index)@example.com", "firstName": "Scale", "lastName": "User \#(index)", "#
                + #""emailVerified": true, "password": {"hash": "\#(passwordHash)"}, "passcode": {"hash": "\#(pinHash)"}, "#
                + #""mfaAnswers": [\#(answers)]}"#)
        }
        let existing = try await self.identities(in: app)
        let started = Date()
        let importer = UserImporter(store: app.store, issuer: app.configuration.issuer, hasher: { app.hasher })
        let report = try await importer.run(lines: (min(existing, identities)..<identities).lazy.map(line), update: false,
                                            failure: { print("import: \($0)") }, progress: { _ in })
        print(String(format: "%d identities on %@: imported %d (%d were there) in %.1f s", identities, app.store.databaseEngine.rawValue,
                     report.created, existing, Date().timeIntervalSince(started)))
        if report.created > 0 { try await settle(app.store) }
    }

    /// How many identities a kept database holds already.
    static func identities(in app: LatchkeyApplication) async throws -> Int {
        guard let engine = (app.store as? SQLStore)?.engine else { return 0 }
        let rows = try await engine.read("SELECT COUNT(*) AS n FROM users WHERE issuer = $1", [.text(app.configuration.issuer.id)])
        guard case .integer(let count) = rows.first?["n"] else { return 0 }
        return Int(count)
    }

    /// What an operator does after a bulk load, so the measurement does not meet the database's
    /// own catching up: PostgreSQL's statistics and visibility map (autovacuum would otherwise
    /// vacuum a million new rows during the measurement, as it did in the first run) and a
    /// checkpoint; SQLite's WAL folded into the database.
    static func settle(_ store: any LatchkeyStore) async throws {
        guard let engine = (store as? SQLStore)?.engine else { return }
        try await settle(engine: engine)
    }

    static func settle(engine: any SQLEngine) async throws {
        let started = Date()
        if engine.kind == .postgres {
            for statement in ["VACUUM ANALYZE", "CHECKPOINT"] { try await engine.execute(statement) }
        } else {
            try await engine.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        print(String(format: "settled (%@) in %.1f s", engine.kind == .postgres ? "VACUUM ANALYZE, CHECKPOINT" : "WAL checkpoint",
                     Date().timeIntervalSince(started)))
    }

    /// The sampled users of `identities`: each gets its device linked and a session (by a password
    /// login over HTTP); users sampled at a smaller size are sampled again.
    static func prepare(app: LatchkeyApplication, driver: LoadDriver, identities: Int) async throws -> [(index: Int, session: String)] {
        var generator = SystemRandomNumberGenerator()
        var picked: [(Int, String)] = []
        for index in Set((0..<sample).map { _ in Int.random(in: 0..<identities, using: &generator) }).sorted() {
            guard let user = try await app.store.user(issuer: app.configuration.issuer.id,
                                                      emailNormalized: "scale-\(index)@example.com") else {
                throw BenchmarkError("scale-\(index) was not imported")
            }
            if try await app.store.device(userID: user.id, deviceID: "scale-\(index)") == nil {
                try await app.store.linkDevice(userID: user.id, deviceID: "scale-\(index)", deviceType: "bench", now: Date())
            }
            let login = try await driver.json(.init(path: "/v1/auth/login/password", method: .POST,
                                                    body: #"{"username": "scale-\#(index)@example.com", "password": "\#(password)"}"#,
                                                    headers: [("X-Device-ID", "scale-\(index)")]))
            guard let session = login["sessionToken"] as? String else { throw BenchmarkError("scale login failed: \(login)") }
            picked.append((index, session))
        }
        return picked.shuffled()
    }

    static func operations(_ users: [(index: Int, session: String)]) -> [(String, @Sendable (Int) -> LoadDriver.Request)] {
        [
            ("POST /v1/auth/login/password", { request in
                let user = users[request % users.count]
                return .init(path: "/v1/auth/login/password", method: .POST,
                             body: #"{"username": "scale-\#(user.index)@example.com", "password": "\#(password)"}"#,
                             headers: [("X-Device-ID", "scale-\(user.index)")])
            }),
            ("POST /v1/auth/login/pin", { request in
                let user = users[request % users.count]
                return .init(path: "/v1/auth/login/pin", method: .POST, body: #"{"pin": "\#(pin)"}"#,
                             headers: [("X-Device-ID", "scale-\(user.index)")])
            }),
            ("GET /v1/auth/session", { request in
                .init(path: "/v1/auth/session", session: users[request % users.count].session)
            }),
        ]
    }
}
