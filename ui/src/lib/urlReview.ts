// What each URL warning (the Rust review of a URL a server wants opened) means, as a sentence for the user.

import type { UrlReview } from "../bindings/UrlReview";
import type { UrlWarning } from "../bindings/UrlWarning";

export function urlWarningText(warning: UrlWarning, review: Pick<UrlReview, "host" | "displayHost">): string {
  switch (warning) {
    case "not_https":
      return "Not https: anyone on the way can read or change this page. Wharf opens plain http only to this computer.";
    case "ip_literal":
      return `The site is an IP address (${review.host ?? "?"}), not a name: nothing tells you who runs it.`;
    case "punycode":
      return `The site's name uses international characters: it reads "${review.displayHost ?? "?"}" but is written "${review.host ?? "?"}". Check that it is the site you expect.`;
    case "mixed_script":
      return "The site's name mixes letters of different alphabets: it may imitate another site's name.";
    case "userinfo":
      return "The address holds a user name before the site (user@site): the site is what follows the @, not what precedes it.";
    case "long_url":
      return "The address is very long: it may hide something in the part you cannot read.";
    case "refused_scheme":
      return "This is not an https address (nor http to this computer): Wharf will not open it.";
  }
}
