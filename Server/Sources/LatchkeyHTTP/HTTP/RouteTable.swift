import Hummingbird
import LatchkeyDomain

/// The routes the server answers, by method, so a known path with the wrong method gets 405
/// rather than 404. Path templates use `{name}` for a parameter segment.
public struct RouteTable: Sendable {
    public private(set) var routes: [(method: HTTPRequest.Method, template: String)] = []

    public init() {}

    package mutating func add(_ method: HTTPRequest.Method, _ template: String) {
        routes.append((method, template))
    }

    /// This table with the routes of `other` too.
    package func adding(_ other: RouteTable?) -> RouteTable {
        var table = self
        table.routes += other?.routes ?? []
        return table
    }

    /// The methods allowed on a concrete path.
    public func methods(for path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/")
        var matching = routes.map { ($0.method, $0.template.split(separator: "/")) }.filter { _, template in
            template.count == segments.count && zip(template, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }
        // The router takes a literal segment over a parameter (`/users/import` is not the user
        // `import`), so a template with a parameter where another has the literal does not answer.
        for index in segments.indices where matching.contains(where: { !$0.1[index].hasPrefix("{") }) {
            matching.removeAll { $0.1[index].hasPrefix("{") }
        }
        return matching.map(\.0)
    }
}
