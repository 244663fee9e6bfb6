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
}
