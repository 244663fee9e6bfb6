import AssetPackFormat
import Foundation

/// The user's languages as the system states them: the default of
/// `Configuration.preferredLanguages`. On Apple platforms, `Locale.preferredLanguages`. On Linux,
/// Foundation's `Locale.preferredLanguages` does not read the user's settings (it answers
/// `en-001` whatever the environment says), so the languages come from the environment as
/// gettext reads it: `LANGUAGE` (a colon-separated list, most preferred first, e.g.
/// `en_GB:fr`) unless the locale is `C` or `POSIX`, then the locale of messages — `LC_ALL`,
/// else `LC_MESSAGES`, else `LANG` (`en_GB.UTF-8` is `en-GB`). Foundation's answer only when
/// none of them names a language. Not in Apple's API (the system supplies the languages).
public enum SystemLanguages {
    /// The preferred languages, most preferred first, as BCP 47 tags.
    public static func preferred(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        #if canImport(Darwin)
        return Locale.preferredLanguages
        #else
        let fromEnvironment = fromPOSIX(environment)
        return fromEnvironment.isEmpty ? Locale.preferredLanguages : fromEnvironment
        #endif
    }

    /// What the POSIX environment says: `LANGUAGE`'s list, then the messages locale; empty when
    /// it names no language.
    static func fromPOSIX(_ environment: [String: String]) -> [String] {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        var names: [String] = []
        if !(locale.map(isPlainC) ?? false), let list = environment["LANGUAGE"] { names += list.split(separator: ":").map(String.init) }
        if let locale { names.append(locale) }
        var out: [String] = []
        for name in names { if let tag = tag(ofLocaleName: name), !out.contains(tag) { out.append(tag) } }
        return out
    }

    /// `en_GB.UTF-8@euro` → `en-GB`; nil for `C`, `POSIX` and what is no language tag.
    static func tag(ofLocaleName name: String) -> String? {
        guard !isPlainC(name) else { return nil }
        let base = name.split(separator: ".", maxSplits: 1).first.map(String.init) ?? name
        let withoutModifier = base.split(separator: "@", maxSplits: 1).first.map(String.init) ?? base
        return LanguageTag(withoutModifier.replacingOccurrences(of: "_", with: "-"))?.description
    }

    /// `C`, `POSIX` and `C.<codeset>` name no language.
    private static func isPlainC(_ name: String) -> Bool {
        name == "C" || name == "POSIX" || name.hasPrefix("C.")
    }
}
