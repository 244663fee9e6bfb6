import ArgumentParsing
import AssetPackFormat
import AssetPackPublishing
import Foundation

/// What `promote`, `rollout` and `rollback` print: the channel's new catalog version and what
/// changed for each pack, then the timestamp and the files retention deleted.
enum ChannelChangeText {
    static func print(_ change: ChannelChange, repository: String, json: Bool) {
        let catalog = change.catalog
        for w in change.warnings { printError("warning: \(w)") }
        if json {
            struct Pack: Encodable { var id: String; var change: String; var previousVersion: Int?; var version: Int? }
            struct Rollout: Encodable { var percent: Int; var fromVersion: Int }
            struct Out: Encodable {
                var repository: String; var channel: String; var catalogVersion: Int; var previousCatalogVersion: Int?
                var rollout: Rollout?; var packs: [Pack]; var deletedFiles: [String]
            }
            Swift.print(jsonString(Out(repository: repository, channel: catalog.channel ?? ChannelName.defaultName, catalogVersion: catalog.version,
                                       previousCatalogVersion: change.previousVersion,
                                       rollout: catalog.rollout.map { Rollout(percent: $0.percent, fromVersion: $0.fromVersion) },
                                       packs: change.changes.map { Pack(id: $0.id, change: $0.kind.rawValue, previousVersion: $0.previousVersion, version: $0.version) },
                                       deletedFiles: change.deletedFiles)))
            return
        }
        Swift.print("\(repository): \(ChannelName.describe(catalog.channel)), catalog version \(change.previousVersion.map { "\($0) → " } ?? "")\(catalog.version), \(catalog.packs.count) pack(s), expires \(RFC3339.string(catalog.expires))")
        for c in change.changes {
            let versions = [c.previousVersion.map { "v\($0)" }, c.version.map { "v\($0)" }].compactMap { $0 }
            Swift.print("  \(c.kind.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(c.id) \(Set(versions).count == 1 ? versions[0] : versions.joined(separator: " → "))")
        }
        if let rollout = catalog.rollout {
            Swift.print("  rollout: \(rollout.percent) % of clients get these versions; the others keep catalog version \(rollout.fromVersion)'s")
        }
        if let ts = change.timestamp { Swift.print("  timestamp version \(ts.version), expires \(RFC3339.string(ts.expires))") }
        if !change.deletedFiles.isEmpty { Swift.print("  deleted \(change.deletedFiles.count) retired file(s)") }
    }

    /// The editor for `repository` with the keys and settings the command line gives.
    static func editor(repository: String, keyFile: String, timestampKeyFile: String?, expires: DurationWithUnit?, keep: Int?) throws(CLIError) -> ChannelEditor {
        var editor: ChannelEditor
        do { editor = ChannelEditor(repository: repository, key: try SigningKey(contentsOf: keyFile)) } catch { throw .failure("--key: \(error)") }
        if let timestampKeyFile {
            do { editor.timestampKey = try SigningKey(contentsOf: timestampKeyFile) } catch { throw .failure("--timestamp-key: \(error)") }
        }
        if let expires { editor.expiresIn = expires.duration.secondsValue }
        if let keep { editor.keep = keep }
        return editor
    }

    /// A `--channel`/`--from`/`--to` value: nil for the default channel; a usage error naming
    /// the option for a bad name.
    static func channel(_ name: String?, option: String) throws(CLIError) -> String? {
        guard let name, name != ChannelName.defaultName else { return nil }
        if let why = ChannelName.problem(with: name) { throw .usage("\(option): \"\(name)\" \(why)") }
        return name
    }
}
