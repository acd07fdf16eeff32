package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"hindsight/models"
)

// userCommand manages accounts: create and reset-password.
func userCommand(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("user needs create or reset-password")
	}
	fs := flag.NewFlagSet("user "+args[0], flag.ContinueOnError)
	email := fs.String("email", "", "the account's email")
	role := fs.String("role", models.RoleResponder, "viewer, responder or admin (create only)")
	name := fs.String("name", "", "the person's name (create only)")
	keepTokens := fs.Bool("keep-tokens", false, "keep the user's API tokens working (reset-password only; they are revoked by default)")
	database := databaseFlag(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *email == "" {
		return errors.New("--email is required")
	}
	store, _, err := openStore(ctx, *database)
	if err != nil {
		return err
	}
	defer store.Close()
	password, err := readPassword(stdin, stdout)
	if err != nil {
		return err
	}
	switch args[0] {
	case "create":
		in := models.UserInput{Email: *email, Name: *name, Role: *role, Password: password}
		if errs := models.ValidateUser(in); len(errs) > 0 {
			return errs
		}
		u, err := store.CreateUser(ctx, in)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created %s (%s)\n", u.Email, u.Role)
		return nil
	case "reset-password":
		if msg := models.PasswordProblem(password); msg != "" {
			return fmt.Errorf("password: %s", msg)
		}
		u, err := store.UserByEmail(ctx, *email)
		if err != nil {
			return err
		}
		tokens := models.RevokeTokens
		if *keepTokens {
			tokens = models.KeepTokens
		}
		set, err := store.SetPassword(ctx, u.ID, password, tokens)
		if err != nil {
			return err
		}
		switch {
		case *keepTokens:
			fmt.Fprintf(stdout, "password of %s reset; their sessions have ended; their API tokens were kept\n", u.Email)
		case set.RevokedTokens == 0:
			fmt.Fprintf(stdout, "password of %s reset; their sessions have ended; they had no API tokens\n", u.Email)
		case set.RevokedTokens == 1:
			fmt.Fprintf(stdout, "password of %s reset; their sessions have ended and their 1 API token was revoked\n", u.Email)
		default:
			fmt.Fprintf(stdout, "password of %s reset; their sessions have ended and their %d API tokens were revoked\n", u.Email, set.RevokedTokens)
		}
		return nil
	}
	return fmt.Errorf("unknown user command %q; use create or reset-password", args[0])
}

// readPassword asks twice without echo on a terminal, or reads one line from standard input when
// it is not a terminal (for scripts).
func readPassword(stdin io.Reader, stdout io.Writer) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(stdout, "Password (at least 12 characters): ")
		first, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stdout)
		if err != nil {
			return "", err
		}
		fmt.Fprint(stdout, "Again: ")
		second, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stdout)
		if err != nil {
			return "", err
		}
		if string(first) != string(second) {
			return "", errors.New("the two passwords differ")
		}
		return string(first), nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read password from standard input: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// tokenCommand creates an API token for a user and prints it alone on the last line.
func tokenCommand(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return errors.New("token needs create")
	}
	fs := flag.NewFlagSet("token create", flag.ContinueOnError)
	email := fs.String("email", "", "the user the token acts as")
	name := fs.String("name", "", "where the token is used")
	database := databaseFlag(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *email == "" || strings.TrimSpace(*name) == "" {
		return errors.New("--email and --name are required")
	}
	store, _, err := openStore(ctx, *database)
	if err != nil {
		return err
	}
	defer store.Close()
	u, err := store.UserByEmail(ctx, *email)
	if err != nil {
		return err
	}
	secret, _, err := store.CreateToken(ctx, u.ID, *name)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "API token %q for %s (%s); it is shown only this once:\n%s\n", *name, u.Email, u.Role, secret)
	return nil
}
