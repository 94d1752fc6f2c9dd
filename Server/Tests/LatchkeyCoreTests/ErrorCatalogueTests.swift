import Foundation
import LatchkeyCore
import Testing

/// `docs/api.md`'s status table is the error catalogue: same rows, same ids, codes and statuses.
@Suite struct ErrorCatalogueTests {
    struct Row: Hashable, CustomStringConvertible {
        var id: String
        var code: Int
        var http: Int
        var description: String { "\(id) \(code)/\(http)" }
    }

    /// The rows `| condition | `id` | code | HTTP |` of the "Errors" table.
    static func documentedRows() throws -> [Row] {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/api.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line -> Row? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 6, cells[2].hasPrefix("`"), let code = Int(cells[3]), let http = Int(cells[4]) else { return nil }
            return Row(id: cells[2].trimmingCharacters(in: CharacterSet(charactersIn: "`")), code: code, http: http)
        }
    }

    static var catalogueRows: [Row] {
        ErrorKind.allCases.map { Row(id: $0.id.rawValue, code: $0.code.rawValue, http: $0.httpStatus) }
    }

    @Test func theDocumentedTableIsTheCatalogue() throws {
        let documented = try Self.documentedRows()
        #expect(documented.count == ErrorKind.allCases.count, "one row per catalogue entry")
        #expect(Set(documented) == Set(Self.catalogueRows),
                "only documented: \(Set(documented).subtracting(Self.catalogueRows)); only in the catalogue: \(Set(Self.catalogueRows).subtracting(documented))")
    }

    @Test func idAndCodeTogetherNameOneEntry() {
        let pairs = ErrorKind.allCases.map { "\($0.id) \($0.code)" }
        #expect(Set(pairs).count == pairs.count)
    }

    @Test func errorsSharingASpecCodeAreDistinctEntries() {
        #expect(ErrorKind.emailInUse.code == ErrorKind.wrongCurrentCredential.code)
        #expect(ErrorKind.emailInUse.httpStatus == 409 && ErrorKind.wrongCurrentCredential.httpStatus == 403)
        #expect(ErrorKind.deviceSuspended.code == 503 && ErrorKind.deviceSuspended.httpStatus == 403)
        #expect(ErrorKind.notReady.code == 503 && ErrorKind.notReady.httpStatus == 503)
    }

    @Test func everyEntryHasAMessageAndAnErrorStatus() {
        for kind in ErrorKind.allCases {
            #expect(!kind.defaultMessage.isEmpty, "\(kind)")
            #expect((400..<600).contains(kind.httpStatus), "\(kind)")
            #expect(DomainError(kind).message == kind.defaultMessage)
        }
    }
}
