import Foundation
import LatchkeyAdminAPI
import LatchkeyCore
import LatchkeyDomain
import OpenAPIRuntime

/// The admin document's operations beyond one wallet: the courier's messages, the import, keys.
extension AdminHandler {
    func listCourierMessages(_ input: Operations.ListCourierMessages.Input) async throws -> Operations.ListCourierMessages.Output {
        let query = input.query
        let pageSize = Self.pageSize(query.pageSize, of: .listCourierMessages)
        let state = query.state.flatMap { CourierMessageState(rawValue: $0.rawValue) }
        let cursor = try query.pageToken.map(PageToken.cursor)
        let (messages, next) = try await operators.courier.messages(state: state, after: cursor, limit: pageSize, for: try call)
        let token = next.map(PageToken.token)
        let link = token.map { token in
            let parameters = [state.map { "state=\($0.rawValue)" }, "pageSize=\(pageSize)", "pageToken=\(token)"].compactMap { $0 }
            return "</admin/v1/courier/messages?\(parameters.joined(separator: "&"))>; rel=\"next\""
        }
        return .ok(.init(headers: .init(link: link), body: .json(.init(messages: messages.map(Self.wire), nextPageToken: token))))
    }

    func importUsers(_ input: Operations.ImportUsers.Input) async throws -> Operations.ImportUsers.Output {
        guard case .applicationXNdjson(let body) = input.body else { throw DomainError(.invalidRequest) }
        let lines = JSONLines(body: body, maxBytes: importMaxBytes)
        let (report, failures) = try await operators.imports.importUsers(lines: lines, update: input.query.update ?? false, for: try call)
        return .ok(.init(body: .json(.init(
            lines: report.lines, created: report.created, updated: report.updated, skipped: report.skipped, failed: report.failed,
            failures: failures.map { .init(line: $0.line, field: $0.field, message: $0.message) }))))
    }

    func listOperatorKeys(_ input: Operations.ListOperatorKeys.Input) async throws -> Operations.ListOperatorKeys.Output {
        .ok(.init(body: .json(.init(keys: try await operators.keys.operatorKeys(for: try call).map(Self.wire)))))
    }

    func createOperatorKey(_ input: Operations.CreateOperatorKey.Input) async throws -> Operations.CreateOperatorKey.Output {
        guard case .json(let request) = input.body else { throw DomainError(.invalidRequest) }
        try AdminInput.check(body: ["name": request.name], of: .createOperatorKey)
        let role = OperatorRole(rawValue: request.role.rawValue) ?? .viewer
        let (record, key) = try await operators.keys.createOperatorKey(name: request.name, role: role, days: request.days, for: try call)
        return .created(.init(body: .json(.init(key: key, operatorKey: Self.wire(record)))))
    }

    func revokeOperatorKey(_ input: Operations.RevokeOperatorKey.Input) async throws -> Operations.RevokeOperatorKey.Output {
        try await operators.keys.revokeOperatorKey(id: input.path.keyId, for: try call)
        return .noContent(.init())
    }
}

/// A streamed body's lines (LF or CRLF), read as they arrive. Past `maxBytes` in all it throws
/// `payload_too_large`; of a line longer than `maxLineBytes` one byte more is kept, so the import
/// reports the line as too long (`ImportLine.parse`) without holding it whole.
struct JSONLines: AsyncSequence, Sendable {
    typealias Element = Substring
    let body: HTTPBody
    let maxBytes: Int
    static let maxLineBytes = ImportLine.maxBytes

    struct Iterator: AsyncIteratorProtocol {
        var chunks: HTTPBody.Iterator
        let maxBytes: Int
        var buffer: [UInt8] = []
        var pending: ArraySlice<UInt8> = []
        var total = 0
        var ended = false

        mutating func next() async throws -> Substring? {
            while true {
                if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    append(pending[pending.startIndex..<newline])
                    pending = pending[(newline + 1)...]
                    return take()
                }
                append(pending)
                pending = []
                if ended { return buffer.isEmpty ? nil : take() }
                guard let chunk = try await chunks.next() else {
                    ended = true
                    continue
                }
                total += chunk.count
                if total > maxBytes {
                    throw DomainError(.payloadTooLarge, message: "The import is larger than admin.importMaxBytes (\(maxBytes) bytes).")
                }
                pending = chunk
            }
        }

        private mutating func append(_ bytes: ArraySlice<UInt8>) {
            buffer.append(contentsOf: bytes.prefix(Swift.max(0, JSONLines.maxLineBytes + 1 - buffer.count)))
        }

        private mutating func take() -> Substring {
            if buffer.last == UInt8(ascii: "\r") { buffer.removeLast() }
            defer { buffer.removeAll(keepingCapacity: true) }
            return Substring(String(decoding: buffer, as: UTF8.self))
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(chunks: body.makeAsyncIterator(), maxBytes: maxBytes) }
}
