/// The mail relay of the `smtp` channel.
public struct SMTPSettings: Codable, Sendable, Equatable {
    public var host: String?
    public var port: Int?
    public init() {}
}
