import Foundation
import Mustache

extension HTTPProviderChannel {
    /// A request body template: Mustache, with every `{{value}}` escaped for the body's format
    /// (percent-encoded in a form, JSON-string-escaped in JSON) and never HTML-escaped.
    /// `{{{value}}}` puts a value in as it is, which a provider's body rarely wants.
    package struct Body: Sendable {
        package let template: MustacheTemplate

        /// Parses `text` for a body of `format`.
        /// - Throws: swift-mustache's `MustacheTemplate.ParserError` when the template does not parse.
        package init(_ text: String, format: HTTPChannelSettings.Format) throws {
            _ = Self.contentTypesRegistered
            // The pragma picks the escaping of the whole template: it is the library's one way to
            // replace the HTML escaping a template starts with.
            template = try MustacheTemplate(string: "{{% CONTENT_TYPE: \(Self.contentTypeName(format))}}" + text)
        }

        /// The body for `values`.
        package func render(_ values: [String: String]) -> String {
            template.render(values)
        }

        /// The values a body template may use: the message's data (`code`, `link`, …) and, over
        /// them, `id`, `to`, `subject`, `text`, `html`, `template`, `language` and `issuer`.
        package static func values(of message: OutgoingMessage, issuer: String) -> [String: String] {
            var values = message.data
            values["id"] = message.id
            values["to"] = message.to
            values["subject"] = message.subject
            values["text"] = message.body
            values["html"] = message.html
            values["template"] = message.template
            values["language"] = message.language
            values["issuer"] = issuer
            return values
        }

        /// Checks that `text` parses and, for JSON, renders to JSON with values that need escaping.
        /// - Throws: `ConfigurationError` at `key`.
        package static func check(_ text: String, format: HTTPChannelSettings.Format, key: String) throws {
            let body: Body
            do { body = try Body(text, format: format) } catch let error as MustacheTemplate.ParserError {
                throw ConfigurationError(key: key, message: "The body template does not parse (line \(error.context.lineNumber): \(error.error)).")
            }
            guard format == .json else { return }
            // Every sample value holds a quote, so a {{value}} outside a JSON string's quotes cannot
            // render to JSON whatever it is: a real code with a leading zero (012345) would
            // otherwise pass as a number here and fail at the provider.
            let sample = OutgoingMessage(id: "sample\"id", channel: .email, to: "a\"b@example.com", template: "sample\"template",
                                         subject: "Sample \"subject\" & more", body: "Line one\nLine two \\ ü \"",
                                         html: "<p>\"Sample\"</p>", language: "en\"", data: ["code": "0123\"45", "link": "https://example.com/?a=1&b=\"2"])
            let rendered = body.render(values(of: sample, issuer: "Sample \"Issuer\""))
            guard (try? JSONSerialization.jsonObject(with: Data(rendered.utf8), options: [.fragmentsAllowed])) != nil else {
                throw ConfigurationError(key: key, message: "The body template does not render to JSON: put each {{value}} inside a JSON string's quotes.")
            }
        }

        private static func contentTypeName(_ format: HTTPChannelSettings.Format) -> String {
            switch format {
            case .form: "LATCHKEY_FORM_VALUE"
            case .json: "LATCHKEY_JSON_STRING"
            }
        }

        /// swift-mustache looks content types up by name when it parses, so they are registered
        /// once before the first template.
        private static let contentTypesRegistered: Void = {
            MustacheContentTypes.register(FormValue(), named: contentTypeName(.form))
            MustacheContentTypes.register(JSONString(), named: contentTypeName(.json))
        }()
    }
}

/// A value in an `application/x-www-form-urlencoded` body, as the WHATWG URL standard serializes
/// it: ASCII letters, digits and `*-._` as they are, a space as `+`, every other byte of its
/// UTF-8 as `%XX`.
struct FormValue: MustacheContentType {
    func escapeText(_ text: String) -> String {
        var escaped = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                escaped += "+"
            default:
                escaped += String(format: "%%%02X", byte)
            }
        }
        return escaped
    }
}

/// A value inside a JSON string (RFC 8259 §7): the quote, the backslash and control characters
/// escaped, everything else as it is.
struct JSONString: MustacheContentType {
    func escapeText(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20: escaped += String(format: "\\u%04X", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
