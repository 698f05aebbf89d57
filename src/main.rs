//! CLI edge. Subcommands are added as their parts land (see README).

fn main() -> anyhow::Result<()> {
    Ok(())
}
