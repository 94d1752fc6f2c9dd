/// The provider call of the `http` channel.
public struct HTTPChannelSettings: Codable, Sendable, Equatable {
    public var url = ""
    public init() {}
}
