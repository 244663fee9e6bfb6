import AssetPackPackaging
import Foundation
import Testing
@testable import AssetPackFormat

@Suite struct ManifestDecoderTests {
    func decode(_ json: String) -> (AssetPackManifest?, [Diagnostic]) {
        ManifestDecoder.decode(Array(json.utf8), file: "M.json")
    }

    func errors(_ json: String) -> [Diagnostic] { decode(json).1.filter { $0.severity == .error } }

    @Test func decodesApplesExamples() throws {
        let (m, d) = decode("""
        {
          "assetPackID": "voice-tutorial-de-DE",
          "downloadPolicy": { "onDemand": {} },
          "language": "de-DE",
          "sourceRoot": "Assets/Voice/de-DE/Tutorial",
          "fileSelectors": [ { "directory": "." } ],
          "platforms": [ "iOS" ]
        }
        """)
        #expect(d.isEmpty)
        #expect(m == AssetPackManifest(assetPackID: "voice-tutorial-de-DE", downloadPolicy: .onDemand,
                                       fileSelectors: [.directory(".")], platforms: [.iOS], language: "de-DE",
                                       sourceRoot: "Assets/Voice/de-DE/Tutorial"))
        let (m2, d2) = decode("""
        { "assetPackID": "Tutorial",
          "downloadPolicy": { "essential": { "installationEventTypes": ["subsequentUpdate", "firstInstallation"] } },
          "fileSelectors": [ { "file": "Videos/Introduction.m4v" }, { "directory": "Textures/Tutorial" } ],
          "platforms": ["visionOS", "iOS"] }
        """)
        #expect(d2.isEmpty)
        #expect(m2?.downloadPolicy == .essential(installationEventTypes: [.firstInstallation, .subsequentUpdate]))
        #expect(m2?.platforms == [.iOS, .visionOS])
    }

    @Test func templateIsAValidManifest() throws {
        // The CLI's template (comments included) must decode without errors.
        let (m, d) = decode(templateForTests)
        #expect(!d.hasErrors, "\(d)")
        #expect(m?.assetPackID == "Tutorial")
    }

    @Test func encodingRoundTripsThroughTheDecoder() throws {
        let m = AssetPackManifest(assetPackID: "a.b_c-1", downloadPolicy: .prefetch(installationEventTypes: [.firstInstallation]),
                                  fileSelectors: [.file("x/y.bin"), .directory("z")], platforms: [.macOS, .tvOS], language: "zh-Hant-TW")
        let data = try JSONEncoder().encode(m)
        let (back, d) = ManifestDecoder.decode([UInt8](data), file: "enc.json")
        #expect(d.isEmpty)
        #expect(back == m)
    }

    @Test func reportsEveryProblemAtOnceWithKeyPaths() {
        let d = errors("""
        {
          "assetPackID": "bad id!",
          "downloadPolicy": { "essential": { "installationEventTypes": [] } },
          "fileSelectors": [ { "file": "/etc/passwd" }, { "directory": "../up" }, { "file": 3 }, {}, { "file": "a", "directory": "b" } ],
          "platforms": ["iOS", "iPadOS", "watchOS"],
          "language": "en-US-x-private"
        }
        """)
        let byPath = Dictionary(grouping: d, by: \.keyPath)
        #expect(byPath["assetPackID"]?.first?.message.contains("may contain only ASCII letters") == true)
        #expect(byPath["downloadPolicy.essential.installationEventTypes"]?.first?.message.contains("at least one") == true)
        #expect(byPath["fileSelectors[0].file"]?.first?.message.contains("is absolute") == true)
        #expect(byPath["fileSelectors[1].directory"]?.first?.message.contains("'..'") == true)
        #expect(byPath["fileSelectors[2].file"]?.first?.message == "expected a string, found a number")
        #expect(byPath["fileSelectors[3]"]?.first?.message.contains("needs a \"file\" or a \"directory\"") == true)
        #expect(byPath["fileSelectors[4]"]?.first?.message.contains("has both") == true)
        #expect(byPath["platforms[1]"]?.first?.message.contains("iPadOS is covered by iOS") == true)
        #expect(byPath["platforms[1]"]?.first?.message.contains("iOS, macOS, tvOS, visionOS") == true)
        #expect(byPath["platforms[2]"]?.first?.message.contains("unknown platform \"watchOS\"") == true)
        #expect(byPath["language"]?.first?.message.contains("BCP 47") == true)
        #expect(d.count == 10)
        #expect(d.allSatisfy { $0.file == "M.json" && $0.line != nil })
        #expect(byPath["platforms[1]"]?.first?.line == 5)
    }

    @Test(arguments: [
        ("{\"essential\": {\"installationEventTypes\": [\"firstInstallation\"]}, \"onDemand\": {}}", "downloadPolicy", "exactly one policy"),
        ("{}", "downloadPolicy", "needs exactly one of"),
        ("{\"onDemand\": {\"x\": 1}}", "downloadPolicy.onDemand", "must be an empty object"),
        ("{\"onDemand\": []}", "downloadPolicy.onDemand", "expected an empty object"),
        ("{\"prefetch\": {}}", "downloadPolicy.prefetch.installationEventTypes", "missing required key"),
        ("{\"prefetch\": {\"installationEventTypes\": \"firstInstallation\"}}", "downloadPolicy.prefetch.installationEventTypes", "expected an array"),
        ("{\"prefetch\": {\"installationEventTypes\": [\"launch\"]}}", "downloadPolicy.prefetch.installationEventTypes[0]", "unknown installation event"),
        ("\"onDemand\"", "downloadPolicy", "expected an object, found a string"),
    ])
    func rejectsBadPolicies(policy: String, keyPath: String, message: String) {
        let d = errors("{\"assetPackID\": \"p\", \"downloadPolicy\": \(policy), \"fileSelectors\": [{\"file\": \"a\"}], \"platforms\": [\"iOS\"]}")
        #expect(d.count == 1)
        #expect(d.first?.keyPath == keyPath)
        #expect(d.first?.message.contains(message) == true, "\(d)")
    }

    @Test func reportsMissingKeysAndWrongTypes() {
        let d = errors("{\"fileSelectors\": {}, \"platforms\": \"iOS\", \"sourceRoot\": 1}")
        #expect(Set(d.map(\.keyPath)) == ["assetPackID", "downloadPolicy", "fileSelectors", "platforms", "sourceRoot"])
        #expect(d.first { $0.keyPath == "assetPackID" }?.message == "missing required key \"assetPackID\"")
        #expect(d.first { $0.keyPath == "fileSelectors" }?.message == "expected an array, found an object")
        #expect(errors("[]").first?.message == "expected an object, found an array")
    }

    @Test func warnsAboutUnknownKeysAndRepeats() {
        let (m, d) = decode("{\"assetPackID\": \"p\", \"downloadPolicy\": {\"onDemand\": {}}, \"fileSelectors\": [{\"file\": \"a\"}], \"platforms\": [\"iOS\", \"iOS\"], \"extra\": true}")
        #expect(m != nil)
        #expect(d.map(\.severity) == [.warning, .warning])
        #expect(d.contains { $0.keyPath == "extra" && $0.message.contains("unknown key") })
        #expect(d.contains { $0.keyPath == "platforms[1]" && $0.message.contains("twice") })
    }

    @Test func reportsSyntaxErrorsWithLineAndColumn() {
        let d = errors("{\n  \"assetPackID\": \"p\",\n  \"platforms\": [\"iOS\",]\n}")
        #expect(d.count == 1)
        #expect(d[0].line == 3 && d[0].column == 23)
        #expect(d[0].description.hasPrefix("M.json:3:23: error: invalid JSON: expected a value"))
    }

    @Test(arguments: ["en", "en-US", "zh-Hant-TW", "es-419", "sr-Latn", "DE-de"])
    func acceptsLanguageTags(_ tag: String) { #expect(LanguageTag(tag) != nil) }

    @Test(arguments: ["", "e", "english", "en-", "en-US-POSIX", "en-u-ca-gregory", "x-private", "en_US", "12"])
    func rejectsLanguageTags(_ tag: String) { #expect(LanguageTag(tag) == nil) }

    @Test func canonicalizesLanguageTags() { #expect(LanguageTag("zh-hant-tw")?.description == "zh-Hant-TW") }

    @Test(arguments: [("", false), ("a", true), ("Level-1.b_c", true), ("-x", false), (".x", false), ("a b", false),
                      ("é", false), (String(repeating: "a", count: 128), true), (String(repeating: "a", count: 129), false)])
    func packIDRules(id: String, valid: Bool) { #expect((AssetPackID.problem(with: id) == nil) == valid) }
}

/// Mirrors Sources/assetpack/Commands/TemplateCommand.swift's comment style: a commented manifest.
let templateForTests = """
// An asset pack manifest.
{
  // A stable identifier.
  "assetPackID": "Tutorial",
  /* Exactly one policy */
  "downloadPolicy": { "essential": { "installationEventTypes": ["firstInstallation", "subsequentUpdate"] } },
  "fileSelectors": [ { "file": "Videos/Introduction.m4v" }, { "directory": "Textures/Tutorial" } ],
  "platforms": ["iOS", "macOS"]
  // "language": "en",
}
"""
