import Testing
@testable import AssetPackFormat

@Suite struct JSONParserTests {
    func parse(_ s: String) throws(SyntaxError) -> JSONNode { try JSONParser.parse(Array(s.utf8)) }

    @Test func acceptsCommentsAndKeepsPositions() throws {
        let node = try parse("// head\n{\n  /* block\n  comment */ \"a\": [1, true, null],\n  \"b\": \"x\\u00e9\\ud83d\\ude00\" // tail\n}")
        guard case .object(let members) = node.value else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["a", "b"])
        #expect(members[0].value.location == SourceLocation(line: 4, column: 19))
        #expect(members[1].value.value == .string("xé😀"))
        #expect(node.location == SourceLocation(line: 2, column: 1))
    }

    @Test(arguments: [
        ("{\"a\": 1,}", 1, 9, "expected a quoted key"),
        ("{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3, "expected ',' or '}'"),
        ("[1, 2", 1, 6, "array is never closed"),
        ("{\"a\": 1, \"a\": 2}", 1, 10, "duplicate key \"a\""),
        ("/* open", 1, 1, "block comment is never closed"),
        ("{\"a\": 01}", 1, 9, "leading zeros"),
        ("\"tab\there\"", 1, 5, "control character"),
        ("{} x", 1, 4, "unexpected text"),
        ("", 1, 1, "found end of file"),
        ("\"\\q\"", 1, 3, "invalid escape"),
    ])
    func reportsSyntaxErrorsWithLineAndColumn(text: String, line: Int, column: Int, reason: String) {
        #expect {
            _ = try parse(text)
        } throws: { error in
            guard let e = error as? SyntaxError else { return false }
            return e.location == SourceLocation(line: line, column: column) && e.message.contains(reason)
        }
    }

    @Test func limitsNesting() {
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(throws: SyntaxError.self) { _ = try parse(deep) }
    }

    @Test func parsesNumbers() throws {
        let node = try parse("[-0.5e2, 10, 0]")
        #expect(node.value == .array([JSONNode(.number(-50), at: .init(line: 1, column: 2)),
                                      JSONNode(.number(10), at: .init(line: 1, column: 10)),
                                      JSONNode(.number(0), at: .init(line: 1, column: 14))]))
    }

    private func syntaxError(_ bytes: [UInt8]) -> SyntaxError? {
        do { _ = try JSONParser.parse(bytes); return nil } catch { return error }
    }

    @Test func skipsALeadingByteOrderMark() throws {
        let bom = ByteScanner.byteOrderMark
        let node = try JSONParser.parse(bom + Array("{\"a\": [1]}".utf8))
        guard case .object(let members) = node.value else { Issue.record("not an object"); return }
        #expect(node.location == SourceLocation(line: 1, column: 1))
        #expect(members[0].value.location == SourceLocation(line: 1, column: 7))
        // Columns on line 1 count from after the mark.
        let e = try #require(syntaxError(bom + Array("[1,]".utf8)))
        #expect(e.location == SourceLocation(line: 1, column: 4) && e.message.contains("found ']'"))
        // A mark anywhere else is not white space.
        let later = try #require(syntaxError(Array(" ".utf8) + bom + Array("{}".utf8)))
        #expect(later.location == SourceLocation(line: 1, column: 2) && later.message.contains("byte 0xEF"))
    }

    @Test(arguments: ["\r\n", "\r", "\n"])
    func crlfAndLoneCrEndOneLine(newline: String) throws {
        let text = ["// head", "{", "  \"a\": 1", "  \"b\": 2", "}"].joined(separator: newline)
        let e = try #require(syntaxError(Array(text.utf8)))
        #expect(e.location == SourceLocation(line: 4, column: 3), "\(e)")
        #expect(e.message.contains("expected ',' or '}'"))
        let node = try parse(["{", "  /* a", "  b */ \"k\": [", "    true]}"].joined(separator: newline))
        guard case .object(let members) = node.value, case .array(let items) = members[0].value.value else {
            Issue.record("not an object of an array"); return
        }
        #expect(members[0].value.location == SourceLocation(line: 3, column: 13))
        #expect(items[0].location == SourceLocation(line: 4, column: 5))
    }

    @Test func integersUpTo2To53AreExact() throws {
        let node = try parse("[9007199254740992, -9007199254740992, 9007199254740991, 1e300, 12345678901234567.5]")
        guard case .array(let items) = node.value else { Issue.record("not an array"); return }
        let numbers = items.map { node -> Double in
            if case .number(let d) = node.value { return d }
            return .nan
        }
        #expect(UInt64(exactly: numbers[0]) == 1 << 53)
        #expect(Int64(exactly: numbers[1]) == -(1 << 53))
        #expect(Int64(exactly: numbers[2]) == (1 << 53) - 1)
        // Written with an exponent or a fraction, a number is a double whatever its size.
        #expect(numbers[3] == 1e300)
        #expect(numbers[4] == 12345678901234567.5)
    }

    @Test(arguments: [
        ("9007199254740993", "9007199254740993", 1, 1),
        ("-9007199254740993", "-9007199254740993", 1, 1),
        ("{\n  \"size\": 18446744073709551616\n}", "18446744073709551616", 2, 11),
        ("[1,\r\n 100000000000000000000]", "100000000000000000000", 2, 2),
    ])
    func integersBeyond2To53AreErrorsWithLineAndColumn(text: String, integer: String, line: Int, column: Int) throws {
        let e = try #require(syntaxError(Array(text.utf8)))
        #expect(e.location == SourceLocation(line: line, column: column), "\(e)")
        #expect(e.message == "integer \(integer) is outside ±2^53 (±9007199254740992) and cannot be read exactly")
    }
}
