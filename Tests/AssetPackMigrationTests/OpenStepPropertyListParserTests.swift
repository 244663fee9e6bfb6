import AssetPackFormat
@testable import AssetPackMigration
import Testing

@Suite struct OpenStepPropertyListParserTests {
    @Test func readsEveryKindOfValue() throws {
        let text = """
        // !$*UTF8*$!
        {
            /* a comment */ name = "Quoted \\"value\\"\\n\\tend";
            path = Sources/App.swift; // trailing comment
            list = ( a, "b c", (nested, ), );
            dict = { inner = { deep = 1; }; };
            data = <0fBD 7a>;
            octal = "\\101\\U00e9";
        }
        """
        let root = try OpenStepPropertyListParser.parse(text)
        let d = try #require(root.dictionary)
        #expect(d.string("name") == "Quoted \"value\"\n\tend")
        #expect(d.string("path") == "Sources/App.swift")
        let list = try #require(d["list"]?.array)
        #expect(list.count == 3)
        #expect(list[1].string == "b c")
        #expect(list[2].array?.first?.string == "nested")
        #expect(d["dict"]?.dictionary?["inner"]?.dictionary?.string("deep") == "1")
        guard case .data(let bytes) = d["data"]?.value else { Issue.record("data not parsed"); return }
        #expect(bytes == [0x0F, 0xBD, 0x7A])
        #expect(d.string("octal") == "Aé")
        #expect(d.entry("path")?.keyLocation == SourceLocation(line: 4, column: 5))
        #expect(d["list"]?.location.line == 5)
    }

    @Test(arguments: [
        ("{ a = b }", 1, 9, "expected ';'"),
        ("{ a = \"open;\n}", 1, 7, "not closed"),
        ("{\n  a = (x, y;\n}", 2, 12, "expected ',' or ')'"),
        ("{ a = <0g>; }", 1, 9, "hex digit"),
        ("{ /* never closed", 1, 3, "comment is not closed"),
        ("{ a = b; } extra", 1, 12, "after the end"),
    ])
    func reportsErrorsWithLineAndColumn(text: String, line: Int, column: Int, reason: String) {
        do {
            _ = try OpenStepPropertyListParser.parse(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.location == SourceLocation(line: line, column: column), "\(error)")
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    @Test func skipsALeadingByteOrderMark() throws {
        let root = try OpenStepPropertyListParser.parse(ByteScanner.byteOrderMark + Array("{ a = b; }".utf8))
        #expect(root.dictionary?.string("a") == "b")
        #expect(root.dictionary?.entry("a")?.keyLocation == SourceLocation(line: 1, column: 3))
        do {
            _ = try OpenStepPropertyListParser.parse(ByteScanner.byteOrderMark + Array("{ a = b }".utf8))
            Issue.record("accepted a missing ';'")
        } catch {
            #expect(error.location == SourceLocation(line: 1, column: 9), "\(error)")
        }
    }

    @Test(arguments: ["\r\n", "\r", "\n"])
    func crlfAndLoneCrEndOneLine(newline: String) throws {
        // A quoted string spanning a line break counts it once too.
        let text = ["// !$*UTF8*$!", "{", "  a = \"x", "y\";", "  b = (c, d;", "}"].joined(separator: newline)
        do {
            _ = try OpenStepPropertyListParser.parse(text)
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.location == SourceLocation(line: 5, column: 12), "\(error)")
            #expect(error.message.contains("expected ',' or ')'"))
        }
        let root = try OpenStepPropertyListParser.parse(["{", "  a = \"x", "y\";", "  /* c", " */ b = c; // d", "}"].joined(separator: newline))
        let d = try #require(root.dictionary)
        #expect(d.string("a") == "x\(newline)y")
        #expect(d.entry("b")?.keyLocation == SourceLocation(line: 5, column: 5))
    }
}
