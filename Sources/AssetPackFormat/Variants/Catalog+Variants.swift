extension Catalog {
    /// The catalog as `device` sees it: each pack with variants stands for the variant chosen
    /// for the device (`VariantChoice`), its entry describing that variant's file, with
    /// `chosenVariant` saying which and why. Everything that installs, updates, reads or reports
    /// a pack then works on the device's variant alone; a different choice (a capability changed)
    /// is a different digest, so the next update switches by delta. Packs without variants are
    /// as they were.
    public func view(for device: DeviceCapabilities) -> Catalog {
        var view = self
        view.packs = packs.map { $0.variant(for: device) }
        if var rollout = view.rollout {
            rollout.packs = rollout.packs.map { $0.variant(for: device) }
            view.rollout = rollout
        }
        return view
    }
}

extension CatalogPack {
    /// This pack as `device` installs it (see `Catalog.view(for:)`).
    public func variant(for device: DeviceCapabilities) -> CatalogPack {
        guard let variants, let (index, initial) = VariantChoice.choose(variants.map(\.conditions), for: device) else { return self }
        var choice = initial
        choice.digests = ["default": digest]
        for v in variants { choice.digests[v.conditions.name] = v.digest }
        var chosen = index.map { variants[$0].entry(of: self) } ?? self
        chosen.variants = nil
        chosen.chosenVariant = choice
        return chosen
    }
}
