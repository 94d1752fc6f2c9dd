import LatchkeyDomain
import Testing

/// The relay's replies as the client reads them (RFC 5321 §4.2).
@Suite struct SMTPReplyTests {
    @Test func aMultilineReplyEndsAtTheLineWithASpace() throws {
        var parser = SMTPReplyParser()
        #expect(try parser.consume("250-relay.example greets you") == nil)
        #expect(try parser.consume("250-STARTTLS") == nil)
        #expect(try parser.consume("250-auth plain LOGIN") == nil)
        let reply = try #require(try parser.consume("250 SIZE 10240000"))
        #expect(reply.code == 250)
        #expect(reply.lines == ["relay.example greets you", "STARTTLS", "auth plain LOGIN", "SIZE 10240000"])
        #expect(reply.extensions["STARTTLS"] == [])
        #expect(reply.extensions["AUTH"] == ["PLAIN", "LOGIN"])
        #expect(reply.extensions["SIZE"] == ["10240000"])
        #expect(reply.extensions["relay.example".uppercased()] == nil, "the greeting line is no extension")
        // The parser starts over for the next reply.
        #expect(try parser.consume("354 go ahead") == SMTPReply(code: 354, lines: ["go ahead"]))
    }

    @Test func aBareCodeIsAReplyWithoutText() throws {
        var parser = SMTPReplyParser()
        #expect(try parser.consume("250") == SMTPReply(code: 250, lines: [""]))
        #expect(SMTPReply(code: 250, lines: [""]).description == "250")
    }

    @Test func theRecordedAnswerIsOneLineAndClassifiesTheCode() throws {
        let refusal = SMTPReply(code: 550, lines: ["5.1.1 <nobody@example.com>:", "Recipient address rejected"])
        #expect(refusal.description == "550 5.1.1 <nobody@example.com>: Recipient address rejected")
        #expect(refusal.isPermanentFailure && !refusal.isPositive)
        let later = SMTPReply(code: 451, lines: ["4.3.0 try again later"])
        #expect(!later.isPermanentFailure && !later.isPositive)
        #expect(SMTPReply(code: 354, lines: ["go"]).isPositive)
        let long = SMTPReply(code: 550, lines: [String(repeating: "x", count: 1000)])
        #expect(long.description.count == 300)
    }

    @Test(arguments: ["hello", "25", "2500 no", "250_x", "abc ok", "199 too low", "600 too high", ""])
    func aLineThatIsNoReplyBreaksTheProtocol(_ line: String) {
        var parser = SMTPReplyParser()
        #expect(throws: SMTPError.self) { try parser.consume(line) }
    }

    @Test func aContinuationWithAnotherCodeOrWithoutEndBreaksTheProtocol() throws {
        var parser = SMTPReplyParser()
        _ = try parser.consume("250-one")
        #expect(throws: SMTPError.protocolViolation("the relay changed the code within a reply")) { try parser.consume("251 two") }
        var endless = SMTPReplyParser()
        for _ in 1...SMTPReplyParser.maximumLines { _ = try endless.consume("250-more") }
        #expect(throws: SMTPError.self) { try endless.consume("250-more") }
    }
}
