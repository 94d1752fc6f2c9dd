import Foundation
import Hummingbird
import LatchkeyCore
import LatchkeyDomain
import NIOCore

/// The documents that associate the issuer's apps with its domain, so their passkeys are the
/// domain's (`issuer.passkeys`): Apple's `/.well-known/apple-app-site-association` (its
/// `webcredentials` apps) and Android's `/.well-known/assetlinks.json` (the apps that may get
/// login credentials). Each answers 404 when no app of its platform is configured. Both are built
/// once from the configuration.
package enum WellKnownRoutes {
    package static let appleAppSiteAssociation = "/.well-known/apple-app-site-association"
    package static let assetLinks = "/.well-known/assetlinks.json"

    package static func add(to router: Router<AppRequestContext>, passkeys: PasskeySettings) throws {
        let apple = passkeys.appleAppIDs.isEmpty ? nil
            : try document(["webcredentials": ["apps": passkeys.appleAppIDs]])
        let android = passkeys.android.isEmpty ? nil : try document(passkeys.android.map { app -> [String: Any] in
            ["relation": ["delegate_permission/common.get_login_creds"],
             "target": ["namespace": "android_app", "package_name": app.package,
                        "sha256_cert_fingerprints": app.sha256CertFingerprints.map { $0.uppercased() }]]
        })
        for (path, body) in [(appleAppSiteAssociation, apple), (assetLinks, android)] {
            router.get(RouterPath(path)) { _, _ -> Response in
                guard let body else { throw DomainError(.notFound, message: "There is no route \(path).") }
                return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
            }
        }
    }

    private static func document(_ object: Any) throws -> ByteBuffer {
        ByteBuffer(data: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }
}
