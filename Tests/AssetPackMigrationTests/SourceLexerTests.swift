import AssetPackFormat
@testable import AssetPackMigration
import Testing

@Suite struct SourceLexerTests {
    @Test func skipsALeadingByteOrderMark() {
        let tokens = SourceLexer.tokens(of: ByteScanner.byteOrderMark + Array("import Foundation".utf8), language: .swift)
        #expect(tokens.map(\.text) == ["import", "Foundation"])
        #expect(tokens.first.map { ($0.line, $0.column, $0.offset) } ?? (0, 0, 0) == (1, 1, 3))
        // Words in comments are placed as tokens are: columns count from after the mark.
        let scan = ODRSourceScanner.scan(ByteScanner.byteOrderMark + Array("// endAccessingResources".utf8), language: .swift, file: "f")
        #expect(scan.uses.map { "\($0.line):\($0.column)" } == ["1:4"])
    }

    @Test(arguments: ["\r\n", "\r", "\n"])
    func crlfAndLoneCrEndOneLine(newline: String) {
        let text = ["let a = 1", "// note", "/* block", "*/ let b = \"s\"", "@\"objc\"; 'c'"].joined(separator: newline)
        let tokens = SourceLexer.tokens(of: Array(text.utf8), language: .swift)
        let comment = tokens.first { $0.kind == .comment }
        #expect(comment?.text == "// note")
        #expect(comment.map { ($0.line, $0.column) } ?? (0, 0) == (2, 1))
        let b = tokens.first { $0.text == "b" }
        #expect(b.map { ($0.line, $0.column) } ?? (0, 0) == (4, 8))
        let string = tokens.first { $0.kind == .string }
        #expect(string.map { ($0.text, $0.line, $0.column) } ?? ("", 0, 0) == ("s", 4, 12))

        let objc = SourceLexer.tokens(of: Array(["x = 'c", "y'"].joined(separator: newline).utf8), language: .objectiveC)
        // An unclosed character literal stops at the line break, whatever its bytes.
        #expect(objc.map(\.text) == ["x", "=", "'c", "y", "'"])
        #expect(objc.last.map { ($0.line, $0.column) } ?? (0, 0) == (2, 2))
    }

    @Test(arguments: ["\r\n", "\r", "\n"])
    func odrWordsInCommentsAreLocatedAfterAnyLineBreak(newline: String) {
        let text = ["let r = NSBundleResourceRequest(tags: [\"A\"])", "/* later:", "   r.endAccessingResources() */"].joined(separator: newline)
        let scan = ODRSourceScanner.scan(Array(text.utf8), language: .swift, file: "f")
        #expect(scan.uses.map { "\($0.line):\($0.column) \($0.live)" } == ["1:9 true", "3:6 false"])
    }
}
