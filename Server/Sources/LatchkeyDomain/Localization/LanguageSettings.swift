import Foundation

/// The languages the portal's pages and the wallet API's messages are said in: the built-in
/// catalogs (English and German), and an issuer's directory of catalogs in the same layout
/// (`<language>/portal.yaml`, `<language>/api.yaml`) that replaces built-in texts key by key and
/// adds languages.
public struct LanguageSettings: Codable, Sendable, Equatable {
    /// The language of a request whose `Accept-Language` names none the catalogs hold.
    public var `default` = "en"
    /// The issuer's catalogs, if any.
    public var directory: String?
    public init() {}
}
