@testable import ArgumentParsing
import Testing

@Suite struct SuggestionTests {
    @Test func editDistanceCountsSwapsOnce() {
        #expect(Suggestion.editDistance(Array("output"), Array("ouptut")) == 1)
        #expect(Suggestion.editDistance(Array("output"), Array("outptu")) == 1)
        #expect(Suggestion.editDistance(Array("output"), Array("otuput")) == 1)
        #expect(Suggestion.editDistance(Array(""), Array("abc")) == 3)
        #expect(Suggestion.editDistance(Array("kitten"), Array("sitting")) == 3)
    }

    @Test func suggestsOnlyNearNames() {
        let names = ["--output", "-o", "--threads", "--json", "--help"]
        #expect(Suggestion.closest(to: "--outptu", among: names) == "--output")
        #expect(Suggestion.closest(to: "--thread", among: names) == "--threads")
        #expect(Suggestion.closest(to: "--out", among: names) == "--output")
        #expect(Suggestion.closest(to: "--JSON", among: names) == "--json")
        #expect(Suggestion.closest(to: "--verbose", among: names) == nil)
        #expect(Suggestion.closest(to: "-x", among: names) == nil)
    }
}
