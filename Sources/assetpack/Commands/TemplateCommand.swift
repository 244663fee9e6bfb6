import ArgumentParsing
import Foundation

struct TemplateCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "template",
            abstract: "Write a commented starter manifest.",
            discussion: "Writes to standard output, or to FILE with -o (refusing to overwrite an existing file).")
    }

    @Option("-o", "--output", value: "FILE", help: "Where to write the manifest.")
    var output: String?

    init() {}

    func run() throws -> Int32 {
        guard let path = output else {
            print(manifestTemplate, terminator: "")
            return 0
        }
        guard !FileManager.default.fileExists(atPath: path) else { throw CLIError.failure("\(path) already exists; not overwriting it") }
        guard FileManager.default.createFile(atPath: path, contents: Data(manifestTemplate.utf8)) else {
            throw CLIError.failure("cannot write \(path)")
        }
        printError("wrote \(path)")
        return 0
    }
}

let manifestTemplate = """
// An asset pack manifest, in the format Apple's `xcrun ba-package` reads.
// Comments like this one are allowed; `assetpack validate` checks the rest.
{
  // A stable identifier: ASCII letters, digits, '.', '-' and '_', starting with a letter or digit.
  "assetPackID": "Tutorial",

  // Exactly one policy:
  //   "essential": downloaded during installation; the app waits for it.
  //   "prefetch":  starts during installation and continues in the background.
  //   "onDemand":  {} — downloaded only when the app asks.
  // essential and prefetch name the events they apply to: "firstInstallation", "subsequentUpdate".
  "downloadPolicy": {
    "essential": {
      "installationEventTypes": ["firstInstallation", "subsequentUpdate"]
    }
  },

  // What goes into the pack. Paths are relative to sourceRoot (or to the folder you run the
  // command in) and keep that form inside the pack: the app reads "Textures/Tutorial/a.png".
  //   { "file": "path/to/file" }          one file
  //   { "directory": "path/to/folder" }   every file below the folder
  "fileSelectors": [
    { "file": "Videos/Introduction.m4v" },
    { "directory": "Textures/Tutorial" }
  ],

  // One or more of: "iOS", "macOS", "tvOS", "visionOS" (iOS covers iPad).
  "platforms": ["iOS", "macOS"]

  // Optional: a BCP 47 language tag for a localized variant ("en", "de-DE", "zh-Hant-TW").
  // "language": "en",

  // Optional: the folder that selector paths are relative to.
  // "sourceRoot": "Assets"
}

"""
