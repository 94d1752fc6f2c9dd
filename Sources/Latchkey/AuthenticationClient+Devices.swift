import Foundation
import LatchkeyAPI

/// A device linked to the wallet, as `devices()` lists it.
public struct LinkedDevice: Sendable, Equatable, Identifiable {
    /// How the server names the device: `jkt:<thumbprint>` for a device key.
    public let id: String
    /// The app's name for the device (its `deviceID` when it was linked).
    public let label: String?
    /// The app's `deviceTypeId` at the device's latest login.
    public let deviceType: String?
    /// The app's `applicationVersion` and the SDK's `paydiantSDKVersion` at the device's latest login.
    public let applicationVersion: String?
    public let sdkVersion: String?
    /// The RFC 7638 thumbprint of the device key (compare with `LatchkeyClient.deviceThumbprint()`).
    public let thumbprint: String?
    /// Whether the device can log in.
    public let status: Status
    public let linkedAt: Date
    public let lastUsedAt: Date?
    /// Whether this is the device the SDK runs on.
    public let isCurrent: Bool

    /// A linked device's standing.
    public enum Status: String, Sendable, Equatable, CaseIterable {
        /// It logs in.
        case active
        /// Locked by failed attempts or by the issuer; an operator reactivates it.
        case deactivated
        /// Suspended by the issuer for now (the spec's 503 at login).
        case suspended
    }

    init(_ wire: Components.Schemas.LinkedDevice) {
        (id, label, deviceType, thumbprint) = (wire.id, wire.label, wire.deviceType, wire.thumbprint)
        (applicationVersion, sdkVersion) = (wire.applicationVersion, wire.sdkVersion)
        status = switch wire.status {
        case .active: .active
        case .deactivated: .deactivated
        case .suspended: .suspended
        }
        (linkedAt, lastUsedAt, isCurrent) = (wire.linkedAt, wire.lastUsedAt, wire.current)
    }
}

extension AuthenticationClient {
    /// The devices linked to the logged-in wallet, oldest link first.
    /// Throws `LatchkeyError` (`.devices`): 401 when not logged in.
    public func devices() async throws(LatchkeyError) -> [LinkedDevice] {
        try await context.call(.devices) { try await api.listDevices().ok.body.json.devices.map(LinkedDevice.init) }
    }

    /// Unlinks one of the wallet's devices: its sessions, device tokens and certificate end. Unlinking
    /// this device logs the SDK out. Throws `LatchkeyError` (`.devices`): 404 when no such device is linked.
    public func unlinkDevice(_ id: String) async throws(LatchkeyError) {
        try await context.call(.devices) { _ = try await api.unlinkDevice(path: .init(deviceId: id)).noContent }
        // The server ended this device's sessions with its link.
        if let own = try? await signer.deviceKey().thumbprint, id == "jkt:" + own { await vault.discard() }
    }
}
