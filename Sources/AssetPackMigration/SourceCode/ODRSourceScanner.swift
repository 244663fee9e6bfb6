/// Finds ODR API uses and requested tags in one Swift or Objective-C file from its tokens.
public struct ODRSourceScanner {
    private let tokens: [SourceToken]
    private let bytes: [UInt8]
    private let language: SourceLanguage
    private let file: String
    private var result = ODRSourceScan()

    /// Scans `bytes`, naming `file` in the results.
    public static func scan(_ bytes: [UInt8], language: SourceLanguage, file: String) -> ODRSourceScan {
        let tokens = SourceLexer.tokens(of: bytes, language: language)
        var s = ODRSourceScanner(tokens: tokens.filter { $0.kind != .comment }, bytes: bytes, language: language, file: file)
        s.findLiveUses()
        s.findWordsOutsideCode(in: tokens)
        s.result.uses.sort { ($0.line, $0.column) < ($1.line, $1.column) }
        return s.result
    }

    private init(tokens: [SourceToken], bytes: [UInt8], language: SourceLanguage, file: String) {
        self.tokens = tokens
        self.bytes = bytes
        self.language = language
        self.file = file
    }

    private func isPunct(_ k: Int, _ p: String) -> Bool {
        k >= 0 && k < tokens.count && tokens[k].kind == .punctuation && tokens[k].text == p
    }

    private func isIdentifier(_ k: Int, _ name: String? = nil) -> Bool {
        k >= 0 && k < tokens.count && tokens[k].kind == .identifier && (name == nil || tokens[k].text == name)
    }

    private mutating func findLiveUses() {
        for k in tokens.indices where tokens[k].kind == .identifier && ODRSymbols.names.contains(tokens[k].text) {
            let t = tokens[k]
            if let label = ODRSymbols.requiredSwiftLabel[t.text], language == .swift {
                guard isPunct(k + 1, "("), isIdentifier(k + 2, label) else { continue }
            }
            let symbol = refine(k)
            result.uses.append(ODRAPIUse(file: file, line: t.line, column: t.column, symbol: symbol, live: true, context: "code"))
            collectTags(at: k, symbol: symbol)
        }
    }

    /// The precise spelling of the use at `k`: which initializer, the async or completion form…
    private func refine(_ k: Int) -> String {
        let name = tokens[k].text
        switch (language, name) {
        case (.swift, "NSBundleResourceRequest"):
            var open = k + 1
            if isPunct(k + 1, "."), isIdentifier(k + 2, "init") { open = k + 3 }
            guard isPunct(open, "("), isIdentifier(open + 1, "tags"), isPunct(open + 2, ":") else { return name }
            return labels(inCallOpenedAt: open).contains("bundle") ? "NSBundleResourceRequest(tags:bundle:)" : "NSBundleResourceRequest(tags:)"
        case (.swift, "beginAccessingResources"), (.swift, "conditionallyBeginAccessingResources"):
            if isPunct(k + 1, "{") || (isPunct(k + 1, "(") && isIdentifier(k + 2, "completionHandler")) {
                return "\(name)(completionHandler:)"
            }
            if isPunct(k + 1, "("), isPunct(k + 2, ")") {
                var j = k - 1
                while j >= 0, j >= k - 6, !isPunct(j, ";"), !isPunct(j, "{"), !isPunct(j, "}") {
                    if isIdentifier(j, "await") { return "\(name)() async" }
                    j -= 1
                }
                return "\(name)()"
            }
            return name
        case (.swift, "setPreservationPriority"): return "setPreservationPriority(_:forTags:)"
        case (.swift, "preservationPriority"): return "preservationPriority(forTag:)"
        case (.objectiveC, "initWithTags"):
            return selectorContinues(from: k, with: "bundle") ? "initWithTags:bundle:" : "initWithTags:"
        case (.objectiveC, "setPreservationPriority"): return "setPreservationPriority:forTags:"
        case (.objectiveC, "beginAccessingResourcesWithCompletionHandler"),
             (.objectiveC, "conditionallyBeginAccessingResourcesWithCompletionHandler"),
             (.objectiveC, "preservationPriorityForTag"):
            return name + ":"
        default:
            return name
        }
    }

    /// The argument labels at depth one of the call whose `(` is at `open`, with their token indices.
    private func labelPositions(inCallOpenedAt open: Int) -> [(label: String, index: Int)] {
        var out: [(String, Int)] = []
        var depth = 0
        var j = open
        while j < tokens.count {
            let t = tokens[j]
            if t.kind == .punctuation {
                if "([{".contains(t.text) { depth += 1 }
                if ")]}".contains(t.text) { depth -= 1; if depth == 0 { break } }
            } else if depth == 1, t.kind == .identifier, isPunct(j + 1, ":"), isPunct(j - 1, "(") || isPunct(j - 1, ",") {
                out.append((t.text, j))
            }
            j += 1
        }
        return out
    }

    private func labels(inCallOpenedAt open: Int) -> [String] { labelPositions(inCallOpenedAt: open).map(\.label) }

    /// Whether the Objective-C message whose part starts at `k` has a later part named `part`.
    private func selectorContinues(from k: Int, with part: String) -> Bool { findSelectorPart(part, after: k) != nil }

    private func findSelectorPart(_ part: String, after k: Int) -> Int? {
        var depth = 0
        var j = k + 1
        while j < tokens.count {
            let t = tokens[j]
            if t.kind == .punctuation {
                if "([{".contains(t.text) { depth += 1 }
                if ")]}".contains(t.text) { depth -= 1; if depth < 0 { return nil } }
                if t.text == ";" { return nil }
            } else if depth == 0, t.kind == .identifier, t.text == part, isPunct(j + 1, ":") {
                return j
            }
            j += 1
        }
        return nil
    }

    /// Records the string literals passed as tags to the use at `k`, or notes non-literal tags.
    private mutating func collectTags(at k: Int, symbol: String) {
        var start: Int?
        switch (language, tokens[k].text) {
        case (.swift, "NSBundleResourceRequest"):
            guard symbol.hasPrefix("NSBundleResourceRequest(") else { return }
            var open = k + 1
            if isPunct(k + 1, ".") { open = k + 3 }
            start = open + 3
        case (.swift, "setPreservationPriority"):
            guard isPunct(k + 1, "(") else { return }
            start = argumentStart(label: "forTags", inCallOpenedAt: k + 1)
        case (.swift, "preservationPriority"):
            start = k + 4 // preservationPriority ( forTag : …
        case (.objectiveC, "initWithTags"), (.objectiveC, "preservationPriorityForTag"):
            guard isPunct(k + 1, ":") else { return }
            start = k + 2
        case (.objectiveC, "setPreservationPriority"):
            start = findSelectorPart("forTags", after: k).map { $0 + 2 }
        default:
            return
        }
        guard let start else {
            return
        }
        let (strings, dynamic) = argument(from: start)
        for s in strings {
            result.tagRequests.append(ODRTagRequest(tag: s.text, file: file, line: s.line, column: s.column, symbol: symbol))
        }
        if strings.isEmpty || dynamic {
            result.dynamicTags.append(ODRDynamicTags(file: file, line: tokens[k].line, symbol: symbol))
        }
    }

    private func argumentStart(label: String, inCallOpenedAt open: Int) -> Int? {
        labelPositions(inCallOpenedAt: open).first { $0.label == label }.map { $0.index + 2 }
    }

    /// Words that build a collection of literals without making the tags dynamic.
    private static let collectionWords: Set<String> = [
        "Set", "NSSet", "String", "Array", "init", "setWithObjects", "setWithObject", "setWithArray",
        "arrayWithObjects", "arrayWithObject", "nil", "alloc", "initWithObjects", "initWithArray",
    ]

    /// The string literals of one argument starting at `start`: it ends at a `,` or closing bracket
    /// at depth zero, or (Objective-C) at the next selector part.
    private func argument(from start: Int) -> (strings: [SourceToken], dynamic: Bool) {
        var strings: [SourceToken] = []
        var dynamic = false
        var depth = 0
        var j = start
        while j < tokens.count {
            let t = tokens[j]
            switch t.kind {
            case .punctuation:
                if t.text == ";" { return (strings, dynamic) }
                if "([{".contains(t.text) { depth += 1 }
                if ")]}".contains(t.text) { depth -= 1; if depth < 0 { return (strings, dynamic) } }
                if depth == 0, t.text == "," { return (strings, dynamic) }
            case .identifier:
                if language == .objectiveC, depth == 0, isPunct(j + 1, ":") { return (strings, dynamic) }
                if !Self.collectionWords.contains(t.text) && !isPunct(j + 1, ":") { dynamic = true }
            case .string:
                strings.append(t)
            default:
                break
            }
            j += 1
        }
        return (strings, dynamic)
    }

    /// ODR names inside comments and string literals: reported, never as live uses.
    private mutating func findWordsOutsideCode(in all: [SourceToken]) {
        let lines = TextLines(bytes)
        for t in all where t.kind == .comment || t.kind == .string {
            var o = t.offset
            while o < t.endOffset {
                let b = bytes[o]
                guard Self.startsWord(b), o == 0 || !Self.isWordByte(bytes[o - 1]) else { o += 1; continue }
                var e = o
                while e < t.endOffset, Self.isWordByte(bytes[e]) { e += 1 }
                let word = String(decoding: bytes[o..<e], as: UTF8.self)
                if ODRSymbols.names.contains(word) {
                    let p = lines.position(of: o)
                    result.uses.append(ODRAPIUse(file: file, line: p.line, column: p.column, symbol: word, live: false,
                                                 context: t.kind == .comment ? "comment" : "string"))
                }
                o = e
            }
        }
    }

    private static func startsWord(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "_")
    }

    private static func isWordByte(_ b: UInt8) -> Bool { startsWord(b) || (b >= 0x30 && b <= 0x39) }
}
