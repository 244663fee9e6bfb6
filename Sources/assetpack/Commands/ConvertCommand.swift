import AssetPackCLI
let convertCommand = CommandSpec(name: "convert", abstract: "x") { _ in 0 }
