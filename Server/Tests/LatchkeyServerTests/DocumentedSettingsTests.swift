import Foundation
import HummingbirdTesting
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing
import Yams

/// What `docs/configuration.md` documents can be set: its YAML blocks are read from the file, so a
/// newly documented key is covered without touching the tests, and the settings a file sets are
/// the ones the server then runs with.
@Suite struct DocumentedSettingsTests {
    /// The YAML blocks of `docs/configuration.md`.
    static func documentedBlocks() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        return text.components(separatedBy: "```yaml\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
    }

    /// The settings a block sets one by one: every value that is not a mapping of settings,
    /// with its dotted path (a list, and the issuer's `fields`, are one setting each).
    static func settings(in node: Node, path: String = "") -> [(path: String, value: Node)] {
        guard let mapping = node.mapping, path != "issuer.fields" else { return [(path, node)] }
        return mapping.flatMap { key, value in
            settings(in: value, path: path.isEmpty ? key.string ?? "?" : "\(path).\(key.string ?? "?")")
        }
    }

    /// Every key path a block names, the keys of lists' elements as `list[].key`; the issuer's
    /// own keys under `issuer.fields` are left out.
    static func keyPaths(in node: Node, path: String = "") -> Set<String> {
        var paths: Set<String> = path.isEmpty ? [] : [path]
        if let mapping = node.mapping, path != "issuer.fields" {
            for (key, value) in mapping {
                paths.formUnion(keyPaths(in: value, path: path.isEmpty ? key.string ?? "?" : "\(path).\(key.string ?? "?")"))
            }
        } else if let list = node.sequence {
            for element in list { paths.formUnion(keyPaths(in: element, path: path + "[]")) }
        }
        return paths
    }

    /// A file setting only `value` at `path`.
    static func file(setting value: Node, at path: String) throws -> String {
        let node = path.split(separator: ".").reversed().reduce(value) { inner, key in Node.mapping(Node.Mapping([(Node(String(key)), inner)])) }
        return try Yams.serialize(node: node)
    }

    /// Each documented block loads as a whole, and each of its settings loads alone, with the
    /// value the document gives it.
    @Test func everyDocumentedSettingLoads() throws {
        let blocks = try Self.documentedBlocks()
        #expect(blocks.count >= 4, "the settings, field metadata, seal-key and provider examples")
        var checked: Set<String> = []
        for block in blocks {
            do { _ = try ServerConfiguration.parse(yaml: block) } catch {
                Issue.record("docs/configuration.md's block does not load: \(error)\n\(block)")
            }
            let node = try #require(try Yams.compose(yaml: block))
            for (path, value) in Self.settings(in: node) {
                let file = try Self.file(setting: value, at: path)
                do { _ = try ServerConfiguration.parse(yaml: file) } catch {
                    Issue.record("\(path), documented, is refused: \(error)")
                }
                checked.insert(path)
            }
        }
        let missing = ["http.metricsToken", "admin.consoleURL", "admin.enabled", "admin.port", "admin.onPublicPort", "admin.console",
                       "admin.host", "admin.requestsPerMinutePerKey", "admin.importMaxBytes", "courier.path", "courier.url"]
            .filter { !checked.contains($0) }
        #expect(missing.isEmpty, "not in the document's YAML: \(missing)")
    }

    /// Every setting the server declares is in the document's YAML, the keys of lists' elements
    /// included, so the document cannot fall behind the settings either.
    @Test func everyDeclaredSettingIsDocumented() throws {
        var documented: Set<String> = []
        for block in try Self.documentedBlocks() {
            if let node = try Yams.compose(yaml: block) { documented.formUnion(Self.keyPaths(in: node)) }
        }
        let missing = SettingKeys.server.shapes.keys.filter { !$0.hasPrefix("issuer.fields.") && !documented.contains($0) }
        #expect(missing.isEmpty, "declared but not in docs/configuration.md's YAML: \(missing.sorted())")
    }

    /// A file that sets an `https:` `admin.consoleURL` (a console behind a TLS proxy) gets the
    /// console `Secure` cookies, the session's `__Host-`.
    @Test func anHTTPSConsoleURLSetInTheFileSecuresTheConsoleCookies() async throws {
        let loaded = try ServerConfiguration.parse(yaml: """
            admin: { enabled: true, onPublicPort: true, consoleURL: "https://console.wallet.example/" }
            """)
        #expect(loaded.admin.consoleURL == "https://console.wallet.example/")
        let clock = TestClock(start: Date())
        try await withServer(clock: clock, configure: { $0.admin = loaded.admin }) { app, client in
            let browser = ConsoleBrowser(client)
            let login = try await browser.get("/console/login")
            let csrf = try #require(browser.lastSetCookie)
            #expect(login.status == .ok && csrf.contains("; Secure"), "\(csrf)")
            _ = try await ConsoleTests.setUp(app, browser, clock: clock, role: .viewer)
            let session = try #require(browser.lastSetCookie)
            #expect(session.hasPrefix("__Host-") && session.contains("; Secure"), "\(session)")
        }
    }
}
