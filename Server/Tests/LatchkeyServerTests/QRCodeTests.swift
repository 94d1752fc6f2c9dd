import Foundation
@testable import LatchkeyDomain
import LatchkeyTestSupport
import Testing

/// The console's setup page draws the authenticator's `otpauth://` URI as a QR code, so an
/// operator at a desk scans it with the phone instead of typing the key.
@Suite struct QRCodeTests {
    // MARK: The standard's vectors

    /// Reed–Solomon error correction of two published version 1-M blocks: ISO/IEC 18004 Annex I's
    /// "01234567" and Thonky's "HELLO WORLD" (the data codewords are the mode's business; the
    /// error correction is the same for every mode).
    @Test func errorCorrectionMatchesThePublishedExamples() {
        let generator = QRCode.generator(degree: 10)
        #expect(QRCode.errorCorrection([0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11],
                                       generator: generator) == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
        #expect(QRCode.errorCorrection([32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17], generator: generator)
                    == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }

    /// The generator polynomial of 10 codewords as ISO/IEC 18004 Annex A lists it (exponents of α):
    /// x¹⁰ + α²⁵¹x⁹ + α⁶⁷x⁸ + α⁴⁶x⁷ + α⁶¹x⁶ + α¹¹⁸x⁵ + α⁷⁰x⁴ + α⁶⁴x³ + α⁹⁴x² + α³²x + α⁴⁵.
    @Test func theGeneratorIsTheStandards() {
        var powers: [UInt8] = [1]
        for _ in 1..<255 { powers.append(QRCode.multiply(powers.last!, 2)) }
        #expect(QRCode.generator(degree: 10) == [251, 67, 46, 61, 118, 70, 64, 94, 32, 45].map { powers[$0] })
    }

    /// Byte mode: 0100, an 8-bit count (16-bit from version 10), the bytes, the terminator, then
    /// 0xEC and 0x11 in turn to the version's data codewords (16 for 1-M).
    @Test func theBitStreamIsByteMode() {
        #expect(QRCode.dataCodewords(Array("A".utf8), version: 1)
                    == [0x40, 0x14, 0x10, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC])
        let long = QRCode.dataCodewords(Array("A".utf8), version: 10)
        #expect(Array(long.prefix(4)) == [0x40, 0x00, 0x14, 0x10] && long.count == 216)
    }

    /// The format information of level M and each mask (ISO/IEC 18004 Annex C, Table C.1), and the
    /// version information of versions 7, 8 and 40 (Annex D, Table D.1).
    @Test func formatAndVersionInformationAreTheTables() {
        #expect((0..<8).map { QRCode.formatBits(mask: $0) } == [0x5412, 0x5125, 0x5E7C, 0x5B4B, 0x45F9, 0x40CE, 0x4F97, 0x4AA0])
        #expect(QRCode.versionBits(7) == 0x07C94 && QRCode.versionBits(8) == 0x085BC && QRCode.versionBits(40) == 0x28C69)
    }

    /// Codewords, byte capacities at level M (ISO/IEC 18004 Tables 1 and 7) and alignment pattern
    /// centres (Annex E) of every version.
    @Test func capacitiesAndAlignmentAreTheTables() {
        #expect(QRCode.totalCodewords(version: 1) == 26 && QRCode.totalCodewords(version: 7) == 196
                    && QRCode.totalCodewords(version: 40) == 3706)
        #expect((1...40).map { QRCode.capacity(version: $0) } == [
            14, 26, 42, 62, 84, 106, 122, 152, 180, 213, 251, 287, 331, 362, 412, 450, 504, 560, 624, 666,
            711, 779, 857, 911, 997, 1059, 1125, 1190, 1264, 1370, 1452, 1538, 1628, 1722, 1809, 1911, 1989, 2099, 2213, 2331,
        ])
        #expect(QRCode.alignmentCentres(version: 1).isEmpty && QRCode.alignmentCentres(version: 2) == [6, 18])
        #expect(QRCode.alignmentCentres(version: 7) == [6, 22, 38] && QRCode.alignmentCentres(version: 32) == [6, 34, 60, 86, 112, 138])
        #expect(QRCode.alignmentCentres(version: 40) == [6, 30, 58, 86, 114, 142, 170])
        #expect(throws: QRCode.Failure.tooLong(byteCount: 2332)) { try QRCode(bytes: Array(repeating: 0x41, count: 2332)) }
    }

    /// The symbol's fixed parts: three finder patterns, the timing patterns, the dark module, and
    /// both copies of the format information of the mask it reports.
    @Test func theSymbolHasItsFunctionPatterns() throws {
        let code = try QRCode(text: "otpauth://totp/Latchkey%20Wallet:desk@example.com")
        let size = code.size
        #expect(size == 17 + 4 * code.version)
        for (left, top) in [(0, 0), (size - 7, 0), (0, size - 7)] {
            for y in 0..<7 {
                for x in 0..<7 {
                    let ring = max(abs(x - 3), abs(y - 3))
                    #expect(code.isDark(x: left + x, y: top + y) == (ring != 2), "finder at \(left),\(top)")
                }
            }
        }
        for index in 8..<(size - 8) { #expect(code.isDark(x: index, y: 6) == (index % 2 == 0) && code.isDark(x: 6, y: index) == (index % 2 == 0)) }
        #expect(code.isDark(x: 8, y: size - 8))
        let format = QRCode.formatBits(mask: code.mask)
        let around = (0...5).map { (8, $0) } + [(8, 7), (8, 8), (7, 8)] + (9..<15).map { (14 - $0, 8) }
        let split = (0..<8).map { (size - 1 - $0, 8) } + (8..<15).map { (8, size - 15 + $0) }
        for copy in [around, split] {
            #expect(copy.enumerated().allSatisfy { code.isDark(x: $0.element.0, y: $0.element.1) == ((format >> $0.offset) & 1 == 1) })
        }
    }

    /// The SVG: a viewBox of the symbol and its quiet zone, crisp edges, one path, no style attribute.
    @Test func theSVGIsOnePathWithAQuietZone() throws {
        let code = try QRCode(text: "HELLO")
        let svg = code.svg(id: "qr", label: "A \"code\" <here>")
        #expect(svg.contains("viewBox=\"0 0 29 29\"") && svg.contains("shape-rendering=\"crispEdges\"") && svg.contains("id=\"qr\""))
        #expect(svg.components(separatedBy: "<path").count == 2 && !svg.contains("style="))
        #expect(svg.contains("aria-label=\"A &quot;code&quot; &lt;here&gt;\""))
        #expect(svg.contains("M4 4h7v1h-7z"), "the top left finder's first row")
    }

    // MARK: Read back by an independent decoder

    /// Every URI the setup page makes: the server's one key length (20 random bytes as 40 hex
    /// characters, whose bytes are the HMAC key: 64 base32 characters in the URI), the default and
    /// a long issuer name (percent-encoded, non-ASCII included), a short address and one at the
    /// longest that mail allows (254 characters); and RFC 6238's three key lengths for good measure.
    @Test(.enabled(if: QRDecoder.enabled, QRDecoder.skipMessage))
    func theServersURIsDecode() throws {
        try QRDecoder.requireTools()
        #expect(TOTPCheck.newSecret().utf8.count == 40)
        let typical = TOTPCheck(secret: TOTPCheck.newSecret()).uri(account: "desk@example.com", issuer: "Latchkey Wallet")
        #expect(typical.utf8.count == 146, "as docs/operations.md says")
        #expect(try QRCode(text: typical).version == 8, "as docs/operations.md says")
        let longest = String(repeating: "l", count: 64) + "@" + String(repeating: "d", count: 60) + "."
            + String(repeating: "e", count: 60) + "." + String(repeating: "f", count: 59) + ".example"
        #expect(longest.count == 254)
        let issuers = ["Latchkey Wallet", "Zürich Cantonal Bank — Wallet for Business & Private Customers (Production)"]
        let secrets = [TOTPCheck.newSecret(), "12345678901234567890", String(repeating: "1234567890", count: 3) + "12",
                       String(repeating: "1234567890", count: 6) + "1234"]
        for issuer in issuers {
            for email in ["a@b.co", "desk@example.com", longest] {
                for secret in secrets {
                    let uri = TOTPCheck(secret: secret).uri(account: email, issuer: issuer)
                    #expect(try QRDecoder.decode(svg: QRCode(text: uri).svg()) == uri, "\(uri.utf8.count) bytes")
                }
            }
        }
    }

    /// Each of the eight masks, forced, decodes (the mask of least penalty is one of them; a wrong
    /// pattern or format information would not read).
    @Test(.enabled(if: QRDecoder.enabled, QRDecoder.skipMessage))
    func everyMaskDecodes() throws {
        try QRDecoder.requireTools()
        let uri = TOTPCheck(secret: TOTPCheck.newSecret()).uri(account: "desk@example.com", issuer: "Latchkey Wallet")
        for mask in 0..<8 {
            let code = try QRCode(bytes: Array(uri.utf8), mask: mask)
            #expect(code.mask == mask)
            #expect(try QRDecoder.decode(svg: code.svg()) == uri, "mask \(mask)")
        }
    }

    /// Texts of every version's capacity, from 14 bytes (version 1) to 2,331 (version 40), decode
    /// to themselves; one byte more takes the next version (whose capacity is decoded in its turn).
    @Test(.enabled(if: QRDecoder.enabled, QRDecoder.skipMessage))
    func everyVersionsCapacityDecodes() throws {
        try QRDecoder.requireTools()
        let alphabet = Array("otpauth://totp/Issuer:desk@example.com?secret=ABCDEFGHIJKLMNOPQRSTUVWXYZ234567&issuer=Latchkey%20")
        for version in 1...40 {
            for length in [QRCode.capacity(version: version), QRCode.capacity(version: version) + 1] where length <= 2331 {
                let text = String((0..<length).map { alphabet[($0 * 7 + version) % alphabet.count] })
                let code = try QRCode(text: text)
                #expect(code.version == (length > QRCode.capacity(version: version) ? version + 1 : version))
                // Decoding is the suite's costliest step (two processes a symbol): once per version.
                if length == QRCode.capacity(version: version) {
                    #expect(try QRDecoder.decode(svg: code.svg()) == text, "version \(code.version), \(length) bytes, mask \(code.mask)")
                }
            }
        }
    }

    /// The setup page holds an inline SVG QR code (markup: the CSP's `default-src 'none'` allows
    /// it, and it uses no style attribute) that an independent decoder reads as the page's link.
    @Test(.enabled(if: QRDecoder.enabled, QRDecoder.skipMessage), arguments: TestEnvironment.engines)
    func theSetupPageShowsTheLinkAsAQRCode(engine: String) async throws {
        try QRDecoder.requireTools()
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: AdminAPITests.configure) { app, client in
            let email = "desk.operator.with.a.longer.name@support.example.com"
            let (_, token) = try await ConsoleService.createOperator(email: email, role: .support, store: app.store, now: clock.now)
            let page = try await ConsoleBrowser(client).get("/console/setup?token=\(token)")
            #expect(page.status == .ok)
            let link = try #require(page.html.range(of: "id=\"otpauth\" href=\"[^\"]*\"", options: .regularExpression))
            let uri = page.html[link].dropFirst("id=\"otpauth\" href=\"".count).dropLast().replacingOccurrences(of: "&amp;", with: "&")
            #expect(uri.hasPrefix("otpauth://totp/") && uri.contains(email))
            let svg = try #require(QRDecoder.svg(in: page.html, id: "qr"), "the setup page has no QR code")
            #expect(!svg.contains("style="), "the console's CSP forbids inline style")
            #expect(try QRDecoder.decode(svg: svg) == uri)
        }
    }

    /// An address so long that the URI exceeds what version 40 holds (2,331 bytes) gets no QR code:
    /// the page still opens with the link and the key.
    @Test func aURITooLongForAQRCodeLeavesTheLinkAndTheKey() async throws {
        let clock = TestClock(start: Date())
        try await withServer(clock: clock, configure: AdminAPITests.configure) { app, client in
            let email = String(repeating: "l", count: 64) + "@" + Array(repeating: String(repeating: "d", count: 60), count: 40)
                .joined(separator: ".") + ".example"
            let (_, token) = try await ConsoleService.createOperator(email: email, role: .support, store: app.store, now: clock.now)
            let page = try await ConsoleBrowser(client).get("/console/setup?token=\(token)")
            #expect(page.status == .ok && page.html.contains("id=\"otpauth\" href=\"otpauth://totp/") && page.text(id: "secret") != nil)
            #expect(!page.html.contains("<svg"), "no QR code for a URI of more than 2,331 bytes")
        }
    }
}

/// Reads a QR code the way a phone's camera would, with tools that share no code with the
/// encoder: `rsvg-convert` (librsvg) rasterises the SVG, `zbarimg` (ZBar) decodes the PNG.
enum QRDecoder {
    static let tools = ["rsvg-convert", "zbarimg"]

    /// Each tool's path, when it is on `PATH`.
    static let paths: [String: String] = {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        var found: [String: String] = [:]
        for tool in tools {
            found[tool] = directories.map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        return found
    }()

    static var available: Bool { tools.allSatisfy { paths[$0] != nil } }
    /// CI installs both tools, so there a missing tool fails the test instead of skipping it.
    static var onCI: Bool { ["true", "1"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "") }
    static var enabled: Bool { available || onCI }
    static let skipMessage: Comment = "rsvg-convert and zbarimg are not on PATH (Debian: apt-get install librsvg2-bin zbar-tools)"

    static func requireTools() throws {
        try #require(available, "CI=true and rsvg-convert or zbarimg is missing: .ci/run installs librsvg2-bin and zbar-tools")
    }

    /// The `<svg …>…</svg>` element with `id` in `html`.
    static func svg(in html: String, id: String) -> String? {
        guard let start = html.range(of: "<svg[^>]*id=\"\(id)\"", options: .regularExpression),
              let end = html.range(of: "</svg>", range: start.lowerBound..<html.endIndex) else { return nil }
        return String(html[start.lowerBound..<end.upperBound])
    }

    /// The text of the one QR code in `svg`, or nil when ZBar finds none.
    static func decode(svg: String) throws -> String? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let svgFile = directory.appendingPathComponent("code.svg"), pngFile = directory.appendingPathComponent("code.png")
        try Data(svg.utf8).write(to: svgFile)
        // Two pixels a module: a phone's camera sees far fewer, and ZBar reads a clean image at two.
        _ = try run("rsvg-convert", ["--zoom", "2", "--format", "png", "--output", pngFile.path, svgFile.path])
        let (status, output) = try run("zbarimg", ["--raw", "-q", pngFile.path])
        guard status == 0, var text = String(data: output, encoding: .utf8) else { return nil }
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    private static func run(_ tool: String, _ arguments: [String]) throws -> (Int32, Data) {
        let process = try SpawnedProcess(try #require(paths[tool]), arguments)
        let output = process.output.readDataToEndOfFile()
        return (process.waitUntilExit(), output)
    }
}
