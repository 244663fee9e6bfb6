import AssetPackFormat
import Testing

@Suite struct ByteScannerTests {
    /// The location of every byte of `text`, read one byte at a time.
    private func locations(_ bytes: [UInt8]) -> [AssetPackFormat.SourceLocation] {
        var scanner = ByteScanner(bytes)
        var out: [AssetPackFormat.SourceLocation] = []
        while !scanner.isAtEnd {
            out.append(scanner.location)
            scanner.advance()
        }
        return out
    }

    @Test func lfCrlfAndLoneCrEachEndOneLine() {
        //                           a     \r    \n    b     \r    c     \n    d
        let got = locations(Array("a\r\nb\rc\nd".utf8))
        let want = [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (3, 1), (3, 2), (4, 1)]
        #expect(got == want.map { SourceLocation(line: $0.0, column: $0.1) })
        var scanner = ByteScanner(Array("a\r\n\r\n\r\rb".utf8))
        scanner.advance { $0 != UInt8(ascii: "b") }
        #expect(scanner.location == SourceLocation(line: 5, column: 1))
    }

    @Test func aLeadingByteOrderMarkIsSkipped() {
        var scanner = ByteScanner(ByteScanner.byteOrderMark + Array("ab\ncd".utf8))
        #expect(scanner.offset == 3)
        #expect(scanner.location == SourceLocation(line: 1, column: 1))
        #expect(scanner.peek() == UInt8(ascii: "a"))
        scanner.advance(by: 3)
        #expect(scanner.location == SourceLocation(line: 2, column: 1))
        #expect(scanner.offset == 6)

        let onlyMark = ByteScanner(ByteScanner.byteOrderMark)
        #expect(onlyMark.isAtEnd && onlyMark.location == SourceLocation(line: 1, column: 1))
        // Only a whole mark at the very start is skipped.
        #expect(ByteScanner([0xEF, 0xBB, 0x41]).offset == 0)
        #expect(ByteScanner(Array(" ".utf8) + ByteScanner.byteOrderMark).offset == 0)
    }

    @Test func peekingMatchingAndText() {
        var scanner = ByteScanner(Array("/* x */y".utf8))
        #expect(scanner.next(are: "/*".utf8) && !scanner.next(are: "*/".utf8))
        #expect(scanner.peek(7) == UInt8(ascii: "y") && scanner.peek(8) == nil)
        let matchedStar = scanner.match(UInt8(ascii: "*"))
        let matchedOpen = scanner.match("/*".utf8)
        #expect(!matchedStar && matchedOpen)
        let start = scanner.offset
        scanner.advance { $0 != UInt8(ascii: "*") }
        #expect(scanner.text(from: start) == " x ")
        let matchedClose = scanner.match("*/".utf8)
        #expect(matchedClose)
        #expect(scanner.describeNext == "'y'")
        scanner.advance()
        #expect(scanner.isAtEnd && scanner.describeNext == "end of file")
        scanner.advance()
        #expect(scanner.offset == 8)
        #expect(ByteScanner([0x0D]).describeNext == "byte 0x0D")
        #expect(ByteScanner([0xC3, 0xA9]).describeNext == "byte 0xC3")
    }

    @Test func hexDigits() {
        #expect(Array("09afAF".utf8).map(ByteScanner.hexValue) == [0, 9, 10, 15, 10, 15])
        #expect(Array("gG /:@`".utf8).allSatisfy { ByteScanner.hexValue($0) == nil })
    }

    @Test func advanceToLineBreakStopsBeforeCrOrLf() {
        for text in ["// c\nx", "// c\r\nx", "// c\rx"] {
            var scanner = ByteScanner(Array(text.utf8))
            scanner.advanceToLineBreak()
            #expect(scanner.offset == 4, "\(text.debugDescription)")
            scanner.advance { ByteScanner.isLineBreak($0) }
            #expect(scanner.location == SourceLocation(line: 2, column: 1), "\(text.debugDescription)")
        }
    }

    @Test func oneSyntaxErrorShape() {
        var scanner = ByteScanner(Array("ab\r\ncd".utf8))
        scanner.advance(by: 5)
        let error = scanner.error("expected '=' after key \"c\", found 'd'")
        #expect(error.line == 2 && error.column == 2 && error.file == nil)
        #expect(error.description == "line 2, column 2: expected '=' after key \"c\", found 'd'")
        #expect(error.in(file: "project.pbxproj").description
                == "project.pbxproj: line 2, column 2: expected '=' after key \"c\", found 'd'")
        #expect(scanner.error("here", at: SourceLocation(line: 1, column: 1)).location == SourceLocation(line: 1, column: 1))
    }
}
