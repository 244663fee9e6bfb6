import ArgumentParsing

/// The tool: every subcommand, in the order `assetpack --help` lists them: the data flow from
/// manifest to client, then the migration tools.
struct AssetpackCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "assetpack",
            abstract: "assetpack — package, verify and ship asset packs described by Apple-compatible manifests.",
            subcommands: [
                TemplateCommand.self,
                ValidateCommand.self,
                PackageCommand.self,
                InspectCommand.self,
                VerifyCommand.self,
                ExtractCommand.self,
                KeygenCommand.self,
                PublishCommand.self,
                PromoteCommand.self,
                RolloutCommand.self,
                RollbackCommand.self,
                ReportCommand.self,
                RotateCommand.self,
                TimestampCommand.self,
                DiffCommand.self,
                VerifyCatalogCommand.self,
                ServeCommand.self,
                KeyServerCommand.self,
                UploadCommand.self,
                InstallCommand.self,
                EnsureCommand.self,
                StatusCommand.self,
                ListCommand.self,
                CatCommand.self,
                RemoveCommand.self,
                UpdateCommand.self,
                FetchCommand.self,
                AgentCommand.self,
                CancelCommand.self,
                DeleteRetiredCommand.self,
                AuditCommand.self,
                ConvertCommand.self,
                AarCommand.self,
            ])
    }
}
