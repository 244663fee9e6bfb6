import AssetPackFormat
@testable import AssetPackMigration
import Testing

@Suite struct KeyValuesParserTests {
    private func syntaxError(_ bytes: [UInt8]) -> SyntaxError? {
        do { _ = try KeyValuesParser.parse(bytes); return nil } catch { return error }
    }

    @Test func skipsALeadingByteOrderMark() throws {
        let doc = try KeyValuesParser.parse(ByteScanner.byteOrderMark + Array("\"Root\" { \"k\" \"v\" }".utf8))
        let root = try #require(doc.entries.first)
        #expect(root.key == "Root" && root.location == SourceLocation(line: 1, column: 1))
        #expect(root.child("k")?.string == "v")
        #expect(root.child("k")?.location == SourceLocation(line: 1, column: 10))
        let e = try #require(syntaxError(ByteScanner.byteOrderMark + Array("\"a\" }".utf8)))
        #expect(e.location == SourceLocation(line: 1, column: 5), "\(e)")
    }

    @Test(arguments: ["\r\n", "\r", "\n"])
    func crlfAndLoneCrEndOneLine(newline: String) throws {
        let text = ["// build script", "\"Root\"", "{", "  \"k\" \"v\" [$WIN32]", "  \"open\"", "}"].joined(separator: newline)
        let e = try #require(syntaxError(Array(text.utf8)))
        #expect(e.location == SourceLocation(line: 6, column: 1), "\(e)")
        #expect(e.message == "key \"open\" has no value before '}'")

        let doc = try KeyValuesParser.parse(Array(["// c", "\"Root\" {", "  Path \"..\\content\\\"", "}"].joined(separator: newline).utf8))
        let root = try #require(doc.entries.first)
        #expect(root.location == SourceLocation(line: 2, column: 1))
        #expect(root.child("path")?.string == "..\\content\\")
        #expect(root.child("path")?.location == SourceLocation(line: 3, column: 3))
    }

    @Test(arguments: ["\r\n", "\r", "\n"])
    func aQuotedStringEndsAtAnyLineBreak(newline: String) throws {
        let e = try #require(syntaxError(Array("\"a\" \"b\(newline)\"c\" \"d\"".utf8)))
        #expect(e.location == SourceLocation(line: 1, column: 5), "\(e)")
        #expect(e.message == "string is not closed before the end of the line")
    }
}
