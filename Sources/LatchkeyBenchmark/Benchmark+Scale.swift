import Foundation
import LatchkeyServer
import Logging

/// `--scale 10000,1000000`: the same logins and session check at growing numbers of identities
/// (three runs of each, the median p99 kept),
/// imported with `UserImporter` (as `latchkey users import` does) into one database that grows
/// from the first size to the next. Hashing is made cheap, so the database is what is measured.
///
/// Each operation cycles through `sample` users spread over the whole range of identities, each
/// with its own linked device and session; the users table, its indexes, the MFA answers and the
/// audit trail hold every identity, the devices and sessions tables the sampled ones.
enum ScaleBenchmark {
    static let password = "scale-pass-1"
    static let pin = "271828"
    static let sample = 2000

    struct Measurement {
        var identities: Int
        var importSeconds: Double
        var results: [LoadDriver.Result]
    }

    static func run(sizes: [Int], database: String?, connections: Int, seconds: Double, logger: Logger) async throws {
        let server = try await InProcessServer.start(logger: logger) { configuration in
            if let database { configuration.database = database }
            configuration.hashing.logN = 1
            configuration.hashing.r = 1
            configuration.hashing.p = 1
            configuration.issuer.deviceBinding = .optional
            configuration.issuer.lockout.walletThreshold = 1000
            configuration.issuer.lockout.deviceThreshold = 1000
            configuration.rateLimits.enabled = false
            configuration.databaseTimeoutMilliseconds = 600_000 // VACUUM of a million rows
        }
        let app = server.application
        print("scale: in-process server on \(app.store.engineName), hashing scrypt logN=1 r=1 p=1, "
              + "\(connections) connections, \(Int(seconds)) s per operation, \(sample) sampled users")
        let questions = Array(app.configuration.issuer.mfa.questions.prefix(2).map(\.mfaQuestion))
        let passwordHash = try await app.hasher.hash(password), pinHash = try await app.hasher.hash(pin)
        let answerHash = try await app.hasher.hash("answer")
        func line(_ index: Int) -> Substring {
            let answers = questions.map { #"{"question": "\#($0)", "hash": "\#(answerHash)"}"# }.joined(separator: ", ")
            return Substring(#"{"email": "scale-\#(index)@example.com", "firstName": "Scale", "lastName": "User \#(index)", "#
                + #""emailVerified": true, "password": {"hash": "\#(passwordHash)"}, "passcode": {"hash": "\#(pinHash)"}, "#
                + #""mfaAnswers": [\#(answers)]}"#)
        }
        let driver = LoadDriver(base: server.url, connections: connections)
        var measurements: [Measurement] = []
        var imported = 0
        for size in sizes.sorted() {
            let started = Date()
            let importer = UserImporter(store: app.store, issuer: app.configuration.issuer, hasher: { app.hasher })
            let report = try await importer.run(lines: (imported..<size).lazy.map(line), update: false,
                                                failure: { print("import: \($0)") }, progress: { _ in })
            let importSeconds = Date().timeIntervalSince(started)
            print(String(format: "%d identities: imported %d (%d existed) in %.1f s", size, report.created, report.skipped,
                         importSeconds))
            imported = size
            try await settle(app.store)
            let users = try await prepare(app: app, driver: driver, identities: size)
            var results: [LoadDriver.Result] = []
            for (name, request) in operations(users) {
                // A p99 of one run moves with the machine (a WAL checkpoint, a neighbour): three
                // runs, and the one with the median p99 is kept.
                var runs: [LoadDriver.Result] = []
                for _ in 0..<3 { runs.append(try await driver.measure("\(name) @ \(size)", seconds: seconds, request: request)) }
                let result = runs.sorted { $0.percentile(0.99) < $1.percentile(0.99) }[1]
                result.print(baseline: nil)
                results.append(result)
            }
            measurements.append(Measurement(identities: size, importSeconds: importSeconds, results: results))
        }
        if let first = measurements.first, let last = measurements.last, measurements.count > 1 {
            for (index, result) in last.results.enumerated() {
                let ratio = result.percentile(0.99) / max(0.001, first.results[index].percentile(0.99))
                print(String(format: "p99 %@ at %d vs %d: %.2f× (target ≤ 1.2×)",
                             operations([]).map(\.0)[index] as NSString, last.identities, first.identities, ratio))
            }
        }
        try await driver.shutdown()
        try await server.stop()
    }

    /// What an operator does after a bulk load, so the measurement does not meet the database's
    /// own catching up: PostgreSQL's statistics and visibility map (autovacuum would otherwise
    /// vacuum a million new rows during the measurement, as it did in the first run) and a
    /// checkpoint; SQLite's WAL folded into the database.
    static func settle(_ store: any LatchkeyStore) async throws {
        guard let engine = (store as? SQLStore)?.engine else { return }
        let started = Date()
        if engine.name == "postgres" {
            for statement in ["VACUUM ANALYZE", "CHECKPOINT"] { try await engine.execute(statement) }
        } else {
            try await engine.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        print(String(format: "settled (%@) in %.1f s", engine.name == "postgres" ? "VACUUM ANALYZE, CHECKPOINT" : "WAL checkpoint",
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
