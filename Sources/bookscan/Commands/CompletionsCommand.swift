import ArgumentParser

/// `bookscan completions bash|zsh|fish`: prints the shell completion script swift-argument-parser makes for bookscan.
struct CompletionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "completions",
        abstract: "Print the shell completion script for bash, zsh or fish.",
        discussion: """
            Install the script where your shell looks for completions:
              bash:  bookscan completions bash > ~/.local/share/bash-completion/completions/bookscan
              zsh:   bookscan completions zsh > ~/.zfunc/_bookscan
                     (with fpath=(~/.zfunc $fpath); autoload -U compinit; compinit in ~/.zshrc)
              fish:  bookscan completions fish > ~/.config/fish/completions/bookscan.fish
            """
    )

    /// The shells swift-argument-parser writes completion scripts for.
    enum Shell: String, CaseIterable, ExpressibleByArgument {
        case bash, zsh, fish

        var completionShell: CompletionShell {
            switch self {
            case .bash: .bash
            case .zsh: .zsh
            case .fish: .fish
            }
        }
    }

    @Argument(help: "The shell: bash, zsh or fish.") var shell: Shell

    func run() {
        print(Bookscan.completionScript(for: shell.completionShell), terminator: "")
    }
}
