/// Sends each message through the channel of its kind: email and SMS may go different ways
/// (`courier.email`, `courier.sms`), each falling back to the courier's default channel.
public struct ChannelRouter: MessageChannel {
    package let email: any MessageChannel
    package let sms: any MessageChannel

    public init(email: any MessageChannel, sms: any MessageChannel) {
        self.email = email
        self.sms = sms
    }

    public func deliver(_ message: OutgoingMessage) async throws {
        switch message.channel {
        case .email: try await email.deliver(message)
        case .sms: try await sms.deliver(message)
        }
    }
}
