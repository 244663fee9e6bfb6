import ArgumentParsing
import AssetPackFormat
import AssetPackMigration
import Foundation

struct AuditCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "audit",
            abstract: "Audit a tree of Xcode projects for On-Demand Resources and plan the move to asset packs.",
            discussion: """
            Finds ODR API uses in Swift and Objective-C (live code versus comments and strings), tags and
            the bytes behind them, ODR build settings, deployment targets and each target's migration path
            (managed, unmanaged, stay-on-odr, no-replacement), and Background Assets keys in Info.plist
            files. Files that cannot be read are reported as findings; the audit goes on. See docs/AUDIT.md.
            """)
    }

    @Argument("DIR")
    var root: String
    @Flag("--json", help: "Print the report as JSON (the stable shape in docs/AUDIT.md).")
    var json: Bool
    @Option("--html", value: "FILE", help: "Also write a self-contained HTML report to FILE.")
    var html: String?

    init() {}

    func run() throws -> Int32 {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIError.failure("\(root) is not a directory")
        }
        let report = Auditor.audit(root: root)
        if let html {
            let page = AuditHTMLRenderer.render(report, root: root)
            do {
                try ManifestSetWriter.writeFile(Array(page.utf8), to: html)
            } catch {
                throw CLIError.failure("\(error)")
            }
            printError("wrote \(html)")
        }
        if json {
            print(jsonString(report))
        } else {
            print(AuditTextRenderer.render(report, root: root), terminator: "")
        }
        return 0
    }
}
