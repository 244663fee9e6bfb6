import AppleArchive
import Testing

@Suite struct AppleArchiveCompressionTests {
    @Test func eachCodecHasTheMagicLetterOfItsContainer() {
        #expect(AppleArchiveCompression(magicLetter: UInt8(ascii: "e")) == .lzfse)
        #expect(AppleArchiveCompression(magicLetter: UInt8(ascii: "x")) == .lzma)
        #expect(AppleArchiveCompression(magicLetter: UInt8(ascii: "z")) == .zlib)
        #expect(AppleArchiveCompression(magicLetter: UInt8(ascii: "4")) == .lz4)
        #expect(AppleArchiveCompression(magicLetter: UInt8(ascii: "m")) == nil)
        #expect(AppleArchiveCompression.none.magicLetter == nil)
    }
}
