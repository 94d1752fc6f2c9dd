import Crypto
import Foundation
import LatchkeyDomain
import LatchkeyServer

/// The console's pages in `--admin-scale`: the same searches and trail reads as the admin API's,
/// as an operator signed in to the console sees them (a rendered page, its session looked up
/// and moved on by each request), with the admin API's targets.
extension AdminScaleBenchmark {
    typealias PageOperation = (String, Double, @Sendable (Int) -> LoadDriver.Request)

    /// The console's operations: an address, an address's beginning, the user with 1,000
    /// sessions, and the events pages unfiltered, by user and by client address.
    static func consoleOperations(app: LatchkeyApplication, ids: [String], indexes: [Int], heavy: String) async throws -> [PageOperation] {
        let cookie = [("Cookie", "latchkey_console=\(try await consoleSession(app: app))")]
        return [
            ("console users?q= (an address)", 50, { .init(path: "/console/users?q=scale-\(indexes[$0 % indexes.count])%40example.com", headers: cookie) }),
            ("console users?q= (an address's beginning)", 50, {
                .init(path: "/console/users?q=scale-\(indexes[$0 % indexes.count] % 1000)", headers: cookie)
            }),
            ("console users/{id} (1,000 sessions)", 50, { _ in .init(path: "/console/users/\(heavy)", headers: cookie) }),
            ("console events", 100, { _ in .init(path: "/console/events", headers: cookie) }),
            ("console events?userId=", 100, { .init(path: "/console/events?userId=\(ids[$0 % ids.count])", headers: cookie) }),
            ("console events?clientIp=", 100, { .init(path: "/console/events?clientIp=10.0.\($0 % 256).\(($0 / 256) % 256)", headers: cookie) }),
        ]
    }

    /// A console session for a new operator (a kept database keeps earlier runs' operators, so
    /// each run makes its own), set up as the setup page does: a password and a code of its
    /// authenticator. The setup secret is derived with a pepper of the benchmark's own, which
    /// only this setup reads; the server signs nobody in with it, it only looks the session up.
    static func consoleSession(app: LatchkeyApplication) async throws -> String {
        let email = "bench-\(SecureRandom.identifier())@example.com"
        let (_, setup) = try await ConsoleService.createOperator(email: email, role: .admin, store: app.store)
        let console = ConsoleService(store: app.store, hasher: app.hasher, pepper: SymmetricKey(size: .bits256), issuerName: "bench")
        guard let totp = try await console.openSetup(token: setup)?.totp else { throw BenchmarkError("the console's setup link was refused") }
        let password = "bench-" + SecureRandom.token()
        let outcome = try await console.completeSetup(token: setup, password: password, confirm: password,
                                                      code: totp.code(step: TOTPCheck.step(of: Date())), clientIP: nil)
        guard case .done(let token) = outcome else { throw BenchmarkError("the console's setup failed: \(outcome)") }
        return token
    }
}
