// SPDX-License-Identifier: MIT
// The protocol's participation token (PM): a fixed supply minted once at deployment, with EIP-2612 permit.
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";

/// @title svc Participation token
/// @notice Fixed-supply ERC20 with gasless approvals; there is deliberately no owner, mint or burn hook.
contract ParticipationToken is ERC20, ERC20Permit {
    /// @param initialHolder Receives the whole supply.
    /// @param initialSupply Total supply in base units (18 decimals).
    constructor(address initialHolder, uint256 initialSupply)
        ERC20("svc Participation", "PM")
        ERC20Permit("svc Participation")
    {
        _mint(initialHolder, initialSupply);
    }
}
