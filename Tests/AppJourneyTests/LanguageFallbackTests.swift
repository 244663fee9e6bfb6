import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Localized voice packs published as variants (`Voices.<language>`): a British user gets the
/// American variant when there is no British one, and a user whose language has no variant at
/// all gets the app's primary language — through the library's `preferredLanguages`, and through
/// the CLI from the user's environment (`LANGUAGE`), as a Linux session sets it.
@Suite struct LanguageFallbackTests {
    static func hello(_ language: String) -> [UInt8] { text("hello in \(language)\n") }

    /// Variants de, en-US and fr (de sorts first: a resolver that falls back to "the first
    /// variant" would pick it), each with the same logical files; Music has no language.
    func repository() throws -> TestRepository {
        let repo = try TestRepository()
        for language in ["de", "en-US", "fr"] {
            try repo.put("Voices.\(language)", policy: .essential(installationEventTypes: [.firstInstallation]), language: language,
                         files: ["voices/hello.txt": Self.hello(language)])
        }
        try repo.put("Music", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["music.txt": text("la la\n")])
        try repo.publish()
        return repo
    }

    @Test(arguments: Client.allCases, [(["en-GB"], "en-US"), (["ja-JP"], "en-US"), (["pt-BR", "fr-CA"], "fr")])
    func theBestVariantIsInstalledAndReadAndNoOther(_ client: Client, _ case: ([String], String)) async throws {
        let languages = (preferred: `case`.0, chosen: `case`.1)
        let repo = try repository()
        let server = try repo.serve()
        let app = App(client, repo: repo, urls: [server.url])
        app.languages = languages.preferred
        let outcome = await app.install()
        #expect(outcome.succeeded, "\(outcome.error ?? "")")
        #expect(Set(outcome.events) == ["finished Voices.\(languages.chosen)", "finished Music"])
        #expect(await app.read("voices/hello.txt") == Self.hello(languages.chosen))
        #expect(await app.read("music.txt") == text("la la\n"))
        // Only the chosen variant was fetched; the others are still there to ask for.
        let fetched = Set(server.packRequests().compactMap { $0.path.split(separator: "/").dropFirst().first.map(String.init) })
        #expect(fetched == ["Voices.\(languages.chosen)", "Music"])
        for other in ["de", "en-US", "fr"] where other != languages.chosen {
            #expect(try await app.status("Voices.\(other)").get() == ["downloadAvailable"])
        }
    }

    /// How the CLI (and every manager left with the default) learns the user's languages on
    /// Linux, where Foundation's `Locale.preferredLanguages` ignores the environment.
    @Test func systemLanguagesComeFromTheEnvironmentAsGettextReadsThem() {
        #expect(SystemLanguages.fromPOSIX(["LANG": "en_GB.UTF-8"]) == ["en-GB"])
        #expect(SystemLanguages.fromPOSIX(["LANGUAGE": "en_GB:fr", "LANG": "de_DE.UTF-8"]) == ["en-GB", "fr", "de-DE"])
        #expect(SystemLanguages.fromPOSIX(["LC_ALL": "pt_BR.UTF-8", "LC_MESSAGES": "fr_FR", "LANG": "de_DE"]) == ["pt-BR"])
        #expect(SystemLanguages.fromPOSIX(["LC_MESSAGES": "sr_RS@latin", "LANG": "de_DE"]) == ["sr-RS"])
        // A C locale names no language and turns LANGUAGE off, as gettext does; nonsense is skipped.
        #expect(SystemLanguages.fromPOSIX(["LANGUAGE": "fr", "LC_ALL": "C"]).isEmpty)
        #expect(SystemLanguages.fromPOSIX(["LANG": "C.UTF-8"]).isEmpty)
        #expect(SystemLanguages.fromPOSIX(["LANGUAGE": "fr:::x_!:en", "LANG": "POSIX"]) == [])
        #expect(SystemLanguages.fromPOSIX(["LANGUAGE": "fr:::x_!:en"]) == ["fr", "en"])
        #expect(SystemLanguages.fromPOSIX([:]).isEmpty)
        #expect(!SystemLanguages.preferred(environment: [:]).isEmpty)
        #expect(SystemLanguages.preferred(environment: ["LANG": "es_MX.UTF-8"]) == ["es-MX"])
    }
}
