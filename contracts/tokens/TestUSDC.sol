// SPDX-License-Identifier: MIT
// A 6-decimal USDC stand-in with an owner-only faucet; deployed on local chains only, never on a real network.
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title Test USD Coin
/// @notice Mirrors real USDC's decimals and permit so local flows exercise the same code paths.
contract TestUSDC is ERC20, ERC20Permit, Ownable {
    /// @param owner_ The only account allowed to mint.
    constructor(address owner_)
        ERC20("Test USD Coin", "USDC")
        ERC20Permit("Test USD Coin")
        Ownable(owner_)
    {}

    /// @notice USDC uses 6 decimals; matching it keeps amount handling identical to production.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Local-chain faucet.
    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
