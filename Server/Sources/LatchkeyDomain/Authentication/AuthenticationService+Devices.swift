import Foundation
import LatchkeyCore

extension AuthenticationService {
    /// The wallet's linked devices, oldest link first.
    public func devices(of principal: Principal) async throws -> [DeviceRecord] {
        try await store.devices(userID: principal.userID)
    }

    /// Unlinks one of the wallet's devices: its sessions (the caller's too, when it is this
    /// device), device tokens and certificates end in the same transaction.
    /// Throws `not_found` (404, field `deviceId`) when the wallet has no such device.
    public func unlink(deviceID: String, of principal: Principal, caller: Caller) async throws {
        let store = self.store.recording(into: caller.audit)
        let time = now()
        try principal.requirePrivileged(within: issuer.sessions.privilegedSeconds, now: time)
        let notice = try outbox.securityNotice(.linkedDevices, to: try await principal.user(), answering: caller, at: time)
        audit(.deviceUnlinked, user: principal.userID, deviceID: deviceID, for: caller)
        guard try await store.unlinkDevice(userID: principal.userID, deviceID: deviceID, now: time, messages: notice) else {
            throw DomainError(.notFound, message: "No device with this id is linked to the wallet.", field: "deviceId")
        }
    }
}
