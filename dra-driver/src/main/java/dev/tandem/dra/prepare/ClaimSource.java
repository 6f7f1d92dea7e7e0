package dev.tandem.dra.prepare;

import java.util.Optional;

/** Where Prepare reads claims: the API server ({@code claims.ApiServerClaims}). Blocking. */
@FunctionalInterface
public interface ClaimSource {

  /**
   * The claim of that namespace and name; empty when there is none.
   *
   * @throws RuntimeException when the API server cannot be asked (Prepare reports it and the
   *     kubelet asks again)
   */
  Optional<ClaimAllocation> claim(String namespace, String name);
}
