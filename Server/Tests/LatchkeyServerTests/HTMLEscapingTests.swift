import Foundation
import LatchkeyDomain
import LatchkeyTestSupport
import Mustache
import Testing

/// The server's pages escape what they show byte by byte (`HTMLText`), and the values in their
/// links and `Link` headers are percent-encoded to ASCII (`PercentEncoding`).
@Suite struct HTMLEscapingTests {
    /// Attack: a search reflected into the console's search field, with a quote followed by a
    /// combining mark. swift-mustache's default escaping compares whole characters, and a quote
    /// with a combining mark after it is one character that is not a quote, so it was written as it
    /// came: the quote ended the attribute and what followed became attributes of the field
    /// (`autofocus onfocus=…`; the console's Content-Security-Policy blocks the script, not the
    /// markup). A link sent to an operator was enough.
    @Test(arguments: TestEnvironment.engines)
    func aQuoteWithACombiningMarkDoesNotLeaveTheAttribute(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: AdminAPITests.configure) { app, client in
            let browser = ConsoleBrowser(client)
            _ = try await ConsoleTests.setUp(app, browser, clock: clock, role: .viewer)
            let attack = "\"\u{301} autofocus onfocus=alert(1) x=\""
            let page = try await browser.get("/console/users?q=" + PercentEncoding.unreserved(attack))
            #expect(page.status == .ok, "\(page.status)")
            let field = try #require(page.html.range(of: "<input id=\"q\" name=\"q\" type=\"search\" value=\"").map { page.html[$0.upperBound...] })
            // The attribute's value runs to the next quote byte: all of the search, escaped.
            let value = String(decoding: Array(field.utf8.prefix { $0 != UInt8(ascii: "\"") }), as: UTF8.self)
            #expect(value == "&quot;\u{301} autofocus onfocus=alert(1) x=&quot;", "\(value)")
            // Nowhere on the page is a quote byte followed by the mark's bytes (U+0301: CC 81).
            let bytes = Array(page.html.utf8)
            #expect(!bytes.indices.dropLast(2).contains { bytes[$0] == UInt8(ascii: "\"") && bytes[$0 + 1] == 0xCC && bytes[$0 + 2] == 0x81 })
        }
    }

    @Test func theFiveAreEscapedEveryOtherByteKept() {
        let html = HTMLText()
        #expect(html.escapeText("<a href=\"x\" title='y'>&amp;</a>") == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;")
        #expect(html.escapeText("Zoë, 東京 — plain") == "Zoë, 東京 — plain")
        #expect(html.escapeText("'\u{301}<\u{301}") == "&#39;\u{301}&lt;\u{301}")
        #expect(html.escapeText("") == "")
    }

    /// The same page text as swift-mustache's own escaping wherever that one is right (no
    /// combining mark after one of the five).
    @Test func theSameAsTheLibrarysForPlainText() throws {
        let texts = ["", "plain", "a < b && c > d", "\"quoted\" and 'single'", "<script>alert('x')</script>", "Zoë & 東京"]
        let mine = try MustacheTemplate(string: HTMLText.template("<p title=\"{{v}}\">{{v}}</p>"))
        let theirs = try MustacheTemplate(string: "<p title=\"{{v}}\">{{v}}</p>")
        for text in texts { #expect(mine.render(["v": text]) == theirs.render(["v": text]), "\(text)") }
    }

    @Test func percentEncodingKeepsOnlyTheUnreserved() {
        #expect(PercentEncoding.unreserved("AZaz09-._~") == "AZaz09-._~")
        #expect(PercentEncoding.unreserved("a b+c/d:e?f&g=h#i%") == "a%20b%2Bc%2Fd%3Ae%3Ff%26g%3Dh%23i%25")
        // A letter outside ASCII is its UTF-8 bytes, so what is written is ASCII.
        #expect(PercentEncoding.unreserved("zoë@東") == "zo%C3%AB%40%E6%9D%B1")
        #expect(PercentEncoding.unreserved("zoë@東").removingPercentEncoding == "zoë@東")
    }

    @Test func timesAreWrittenInUTCToTheSecond() {
        let date = Date(timeIntervalSince1970: 1_795_855_403.75) // 2026-11-28 08:43:23.75 UTC
        #expect(UTCTimestamp.rfc3339(date) == "2026-11-28T08:43:23Z")
        #expect(UTCTimestamp.readable(date) == "2026-11-28 08:43:23")
        #expect(UTCTimestamp.rfc3339(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(UTCTimestamp.rfc3339(date) == date.formatted(.iso8601))
        // The console's form, as it was written through Foundation before.
        #expect(UTCTimestamp.readable(date) == date.formatted(.iso8601.year().month().day().dateSeparator(.dash)
            .time(includingFractionalSeconds: false).timeSeparator(.colon)).replacingOccurrences(of: "T", with: " "))
        // Half a second before 1970 is its last second of 1969; a year past 9999 keeps its digits.
        #expect(UTCTimestamp.rfc3339(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59Z")
        #expect(UTCTimestamp.rfc3339(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00Z")
    }
}
